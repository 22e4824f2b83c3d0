import { describe, expect, it } from 'vitest';
import { openSse, type SseConnection } from '../../sse-client.js';
import type { Answer } from '../contract-client.js';
import { signUp, type Actor, type GetContext } from '../context.js';
import { streaming } from '../sweeps/operations.js';

/** One event of a stream's text as the proxy handed it over (comments and `retry:` skipped). */
interface StreamEvent {
  id: string | undefined;
  event: string;
  data: { type?: string; reason?: string; data?: Record<string, unknown> };
}

/** The events of a whole `text/event-stream` body (WHATWG HTML §9.2: blocks end with a blank line). */
function eventsOf(body: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of body.split('\n\n')) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
    }
    if (fields.data !== undefined) events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) });
  }
  return events;
}

/** The account's requests today (the day window counts, it does not refill within the day). */
async function requestsToday(actor: Actor): Promise<number> {
  return (await actor.api.call('getUsage', { token: actor.access }, 200)).body.day.used;
}

/**
 * Waits until the server has admitted one more request of the account than `before` (the stream
 * being opened through the proxy, which answers nothing until the stream ends). Reading the usage
 * spends none.
 */
async function untilAdmitted(actor: Actor, before: number): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if ((await requestsToday(actor)) !== before) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the stream request never reached the server');
}

/**
 * Opens a stream through the strict proxy and ends it from the side with `end` once the server
 * has admitted the request. Prism reads an answer whole before it validates and forwards it, so
 * the 200 arrives — and is checked against the document — only when the server ends the stream.
 */
async function streamUntilEnded(actor: Actor, open: () => Promise<Answer>, end: () => Promise<unknown>): Promise<Answer> {
  const before = await requestsToday(actor);
  const answer = open();
  // If the request failed early (a 4xx), stop waiting for it to be admitted.
  const early = answer.then(() => undefined, () => undefined);
  await Promise.race([untilAdmitted(actor, before), early]);
  await end();
  return answer;
}

/**
 * Live streams (Server-Sent Events) through the validating proxy. An endless answer never gets
 * through Prism, so every stream opened here is one the server ends: a chat stream by deleting
 * the chat (`stream.closed` reason `chat_deleted`), the account stream by revoking its API key
 * (`credential_revoked`). What a stream shows live, heartbeats, resuming and the cap's release are
 * in test/routes/streams.test.ts and test/multi-instance-streams.test.ts (real sockets, no proxy).
 */
export function streamsJourney(ctx: GetContext): void {
  describe('live streams', () => {
    it('the streaming operations of the document are the ones this journey opens and ends', () => {
      // A new streaming operation needs a way to end its streams here, or its 200 hangs the proxy.
      expect(streaming(ctx().api.operations()).map((op) => op.operationId).sort()).toEqual(['streamChat', 'streamEvents']);
    });

    it('streams a chat, from the start, until the chat is deleted', async () => {
      const actor = await signUp(ctx().api, 'chatstream');
      const agent = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Streamer', model: 'gpt-4o' } }, 201);
      const open = async () => {
        const chat = (await actor.api.call('createChat', { token: actor.access, json: { agent_id: agent.body.id } }, 201)).body.id as string;
        await actor.api.call('createMessage', { token: actor.access, path: { id: chat }, json: { role: 'user', content: 'Hello?' } }, 201);
        const reply = (await actor.api.call('createMessage', { token: actor.access, path: { id: chat }, json: { role: 'assistant', status: 'streaming' } }, 201)).body.id as string;
        await actor.api.call('appendMessageDelta', { token: actor.access, path: { id: chat, message_id: reply }, json: { sequence: 1, content: 'Hi' } }, 200);
        await actor.api.call('completeMessage', { token: actor.access, path: { id: chat, message_id: reply } }, 200);
        await actor.api.call('updateChat', { token: actor.access, path: { id: chat }, json: { title: 'Greetings' } }, 200);
        return chat;
      };
      // From event 0, the stream first replays what the chat holds: the deletion cannot fall between
      // the server finding the chat and the stream starting to listen. If it comes before the server
      // finds the chat at all, the answer is 404: a new chat, once more.
      let answer: Answer | undefined;
      for (let attempt = 0; attempt < 3 && answer?.status !== 200; attempt++) {
        const chat = await open();
        answer = await streamUntilEnded(
          actor,
          () => actor.api.call('streamChat', { token: actor.access, path: { id: chat }, query: { last_event_id: 0 } }, [200, 404]),
          () => actor.api.call('deleteChat', { token: actor.access, path: { id: chat } }, 204),
        );
      }
      expect(answer!.status).toBe(200);
      expect(answer!.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events = eventsOf(answer!.body);
      // Replayed from 0, the chat's own chat.created comes first (the protocol does not list it for chat streams).
      const shown = events.map((e) => e.event).filter((name) => name !== 'chat.created');
      expect(shown).toEqual(['message.created', 'message.created', 'message.delta', 'message.completed', 'chat.updated', 'stream.closed']);
      expect(events.at(-1)).toEqual({ id: undefined, event: 'stream.closed', data: { reason: 'chat_deleted' } });
      const ids = events.slice(0, -1).map((e) => Number(e.id));
      expect(ids.every((n, i) => Number.isInteger(n) && (i === 0 || n > ids[i - 1]!))).toBe(true);
      for (const e of events.slice(0, -1)) expect(e.data.type).toBe(e.event);
    });

    it("streams the account's events to an API key until the key is revoked", async () => {
      const actor = await signUp(ctx().api, 'eventstream');
      await actor.api.call('createAgent', { token: actor.access, json: { name: 'Watched', model: 'gpt-4o' } }, 201);
      // The key also expires in a few seconds: should the revocation arrive while the stream is
      // still between its authentication and its start (where the server misses it for good),
      // the expiry ends the stream instead of leaving the proxy waiting.
      // The revocation is sent once the server has admitted the request, which can be before the
      // stream has replayed anything; a revoked key is then rightly sent nothing more. So the
      // stream is tried again with a fresh key (at most three times) until the replay came first.
      let key: { id: string; key: string } | undefined;
      let answer: Answer | undefined;
      let events: StreamEvent[] = [];
      for (let attempt = 0; attempt < 3 && events[0]?.event !== 'agent.created'; attempt++) {
        const expires_at = new Date(Date.now() + 10_000).toISOString();
        const created = (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'watcher', scopes: ['agents:read', 'chats:read'], expires_at } }, 201)).body;
        key = created as { id: string; key: string };
        answer = await streamUntilEnded(
          actor,
          () => actor.api.call('streamEvents', { token: created.key, query: { types: 'agent.*,chat.*', last_event_id: 0 } }, 200),
          () => actor.api.call('revokeApiKey', { token: actor.access, path: { id: created.id } }, 204),
        );
        events = eventsOf(answer.body);
        // Whatever came, it ends with the closing event.
        expect(events.at(-1)?.event).toBe('stream.closed');
      }
      expect(answer!.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      // Replayed from event 0, of the types asked for: the agent, not the key (an API key may not read api_key.* at all).
      expect(events.map((e) => e.event)).toEqual(['agent.created', 'stream.closed']);
      expect(events[0]!.data.data).toMatchObject({ name: 'Watched' });
      expect(['credential_revoked', 'token_expired']).toContain(events[1]!.data.reason);
      // And the key opens nothing any more.
      expect((await actor.api.call('streamEvents', { token: key!.key }, 401)).body.code).toBe('invalid_token');
    });

    it('refuses before the stream starts: a bad Last-Event-ID or type, a type beyond the key, a chat of another account', async () => {
      const actor = await signUp(ctx().api, 'streamrefusals');
      const stranger = await signUp(ctx().api, 'streamstranger');
      const agent = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Quiet', model: 'gpt-4o' } }, 201);
      const chat = (await actor.api.call('createChat', { token: actor.access, json: { agent_id: agent.body.id } }, 201)).body.id as string;
      const bad = await actor.api.call('streamChat', { token: actor.access, path: { id: chat }, query: { last_event_id: 'abc' } }, 400);
      expect(bad.body.errors[0].field).toBe('/last_event_id');
      // The header says the same as the query parameter, and wins.
      await actor.api.call('streamChat', { token: actor.access, path: { id: chat }, query: { last_event_id: '1' }, headers: { 'last-event-id': '-1' } }, 400);
      await actor.api.call('streamEvents', { token: actor.access, query: { last_event_id: '1.5' } }, 400);
      expect((await actor.api.call('streamEvents', { token: actor.access, query: { types: 'nonsense.*' } }, 400)).body.errors[0].field).toBe('/types');
      const chatsOnly = (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'chats', scopes: ['chats:read'] } }, 201)).body.key as string;
      // Account events (keys, sessions…) are for an access token, agents need agents:read.
      for (const types of ['api_key.*', 'agent.created']) {
        expect((await actor.api.call('streamEvents', { token: chatsOnly, query: { types } }, 403)).body.code).toBe('insufficient_scope');
      }
      expect((await stranger.api.call('streamChat', { token: stranger.access, path: { id: chat } }, 404)).body.code).toBe('not_found');
    });

    it('answers 429 too_many_streams past the free tier cap of 5 open streams', async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'streamcap');
      const agent = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Busy', model: 'gpt-4o' } }, 201);
      const chat = (await actor.api.call('createChat', { token: actor.access, json: { agent_id: agent.body.id } }, 201)).body.id as string;
      // The five held open straight at the server (the proxy would answer them only at their end).
      const held: SseConnection[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          const sse = await openSse(`${stack.server.base}/v1/events/stream`, { authorization: `Bearer ${actor.access}`, 'x-forwarded-for': actor.api.ip });
          held.push(sse);
          expect(sse.status).toBe(200);
        }
        for (const refused of [
          await actor.api.call('streamChat', { token: actor.access, path: { id: chat } }, 429),
          await actor.api.call('streamEvents', { token: actor.access }, 429),
        ]) {
          expect(refused.body).toMatchObject({ code: 'too_many_streams', limit: 5 });
          expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        }
      } finally {
        for (const sse of held) sse.close();
      }
    });
  });
}
