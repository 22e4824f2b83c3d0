import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, type StreamEvent } from '../src/index.js';
import { rejection, signUp, type SignedIn } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

/**
 * The SDK's live streams against a real `gatehouse serve`, on the fetch path (Node's fetch streams
 * response bodies). The XMLHttpRequest path runs against a live server in the React Native
 * package's suite, on React Native's own XMLHttpRequest.
 */
let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer({ STREAM_HEARTBEAT_SECONDS: '1' });
});
afterAll(() => server.stop());

async function chatOf(user: SignedIn): Promise<string> {
  const agent = await user.gh.agents.create({ name: 'Bot', model: 'gpt-4o' });
  return (await user.gh.chats.create({ agent_id: agent.id })).id;
}

/** Collects events from `stream` until `done` says so. */
async function collect(stream: AsyncIterable<StreamEvent>, done: (events: StreamEvent[]) => boolean): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (done(events)) break;
  }
  return events;
}

describe('chats.stream against the live server (fetch)', () => {
  it('yields a streamed reply as it is written, then resumes from lastEventId without a gap or a repeat', async () => {
    const user = await signUp(server);
    const chatId = await chatOf(user);
    const stream = user.gh.chats.stream(chatId, { transport: 'fetch' });
    const received = collect(stream, (events) => events.some((e) => e.type === 'message.completed'));

    // The agent runtime, with an API key of its own.
    const { key } = await user.gh.apiKeys.create({ name: 'runtime', scopes: ['chats:write', 'chats:read'] });
    const runtime = createGatehouse({ baseUrl: server.base, apiKey: key! });
    await user.gh.chats.messages.create(chatId, { role: 'user', content: 'Tell me a story' });
    const reply = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
    for (const [i, content] of ['Once', ' upon', ' a time'].entries()) await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: i + 1, content });
    // A retried delta changes nothing.
    expect((await runtime.chats.messages.appendDelta(chatId, reply.id, { sequence: 3, content: ' a time' })).content).toBe('Once upon a time');
    await runtime.chats.messages.complete(chatId, reply.id);

    const events = await received;
    expect(events.map((e) => e.type)).toEqual(['message.created', 'message.created', 'message.delta', 'message.delta', 'message.delta', 'message.completed']);
    expect(events.filter((e) => e.type === 'message.delta').map((e) => (e.data as { content: string }).content).join('')).toBe('Once upon a time');
    expect(events.map((e) => e.sequence)).toEqual([...events.map((e) => e.sequence)].sort((a, b) => a - b));
    expect(stream.lastEventId).toBe(String(events.at(-1)!.sequence));

    // Later: what came after the second event, from the stream's own lastEventId.
    await user.gh.chats.update(chatId, { title: 'A story' });
    const resumed = await collect(user.gh.chats.stream(chatId, { lastEventId: events[1]!.sequence, transport: 'fetch' }), (got) => got.some((e) => e.type === 'chat.updated'));
    expect(resumed.map((e) => e.type)).toEqual(['message.delta', 'message.delta', 'message.delta', 'message.completed', 'chat.updated']);
    expect(resumed[0]!.sequence).toBe(events[2]!.sequence);
  });

  it('calls onOpen once connected, and a stream that started live resumes from where it started', async () => {
    const user = await signUp(server);
    const chatId = await chatOf(user);
    await user.gh.chats.messages.create(chatId, { role: 'user', content: 'before' });
    let opened = 0;
    const stream = user.gh.chats.stream(chatId, { transport: 'fetch', onOpen: () => opened++ });
    const iterator = stream[Symbol.asyncIterator]();
    const first = iterator.next();
    await expect.poll(() => opened).toBe(1);
    // Started live: its position is the account's last event, so 'before' is not replayed later.
    await expect.poll(() => stream.lastEventId).not.toBeNull();
    const position = Number(stream.lastEventId);
    await user.gh.chats.messages.create(chatId, { role: 'user', content: 'after' });
    const event = (await first).value!;
    expect((event.data as { content: string }).content).toBe('after');
    expect(event.sequence).toBeGreaterThan(position);
    stream.close();
  });

  it('ends the iteration when the chat is deleted, and throws 404 for a chat that is not there', async () => {
    const user = await signUp(server);
    const chatId = await chatOf(user);
    const iteration = collect(user.gh.chats.stream(chatId), () => false);
    await new Promise((r) => setTimeout(r, 200));
    await user.gh.chats.delete(chatId);
    expect(await iteration).toEqual([]);
    const error = await rejection(collect(user.gh.chats.stream(chatId), () => false));
    expect(isGatehouseError(error, 'not_found')).toBe(true);
  });

  it("throws credential_revoked's 401 once its key is revoked, and the account stream filters by type", async () => {
    const user = await signUp(server);
    const chatId = await chatOf(user);
    const { key, id } = await user.gh.apiKeys.create({ name: 'watcher', scopes: ['chats:read', 'agents:read'] });
    const watcher = createGatehouse({ baseUrl: server.base, apiKey: key! });
    const onlyAgents = collect(watcher.events.stream({ types: ['agent.*'] }), (events) => events.length === 1);
    const untilRevoked = rejection(collect(watcher.chats.stream(chatId), () => false));
    await new Promise((r) => setTimeout(r, 200));
    await user.gh.chats.messages.create(chatId, { role: 'user', content: 'not an agent event' });
    await user.gh.agents.create({ name: 'Second', model: 'gpt-4o' });
    expect((await onlyAgents).map((e) => e.type)).toEqual(['agent.created']);
    await user.gh.apiKeys.revoke(id);
    const error = await untilRevoked;
    expect(isGatehouseError(error)).toBe(true);
    expect((error as { status: number }).status).toBe(401);
  });

  it('is closed by close() and by its signal; a stream refused by the cap (429) gets in once a slot is free', async () => {
    const user = await signUp(server);
    const chatId = await chatOf(user);
    const controller = new AbortController();
    const streams = Array.from({ length: 5 }, (_, i) => user.gh.chats.stream(chatId, i === 0 ? { signal: controller.signal } : {}));
    const loops = streams.map((s) => collect(s, () => false));
    await new Promise((r) => setTimeout(r, 300));
    // The free tier holds 5 open streams: the sixth is refused (429 too_many_streams, Retry-After 5)
    // and waits; from lastEventId 0 it then replays what it missed.
    const sixth = collect(user.gh.events.stream({ types: ['chat.message.created'], lastEventId: 0 }), (events) => events.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    for (const s of streams.slice(1)) s.close();
    expect(await Promise.all(loops)).toEqual([[], [], [], [], []]);
    await user.gh.chats.messages.create(chatId, { role: 'user', content: 'for the sixth' });
    expect((await sixth).map((e) => (e.data as { content: string }).content)).toEqual(['for the sixth']);
  }, 20_000);
});
