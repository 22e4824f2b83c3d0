import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type ServerProcess } from './server-process.js';
import { openSse, type SseConnection } from './sse-client.js';
import { scratchPostgres } from './webhooks/process-helpers.js';

/**
 * Live streams across two server processes on one PostgreSQL database and one Redis: an event
 * committed on instance A reaches a stream held by instance B, a revocation on A closes B's
 * streams, and the open-stream cap counts both. Runs when DATABASE_URL and REDIS_URL are set.
 */
const enabled = Boolean(process.env.DATABASE_URL?.startsWith('postgres') && process.env.REDIS_URL);

describe.runIf(enabled)('live streams across two instances on PostgreSQL + Redis', () => {
  let database: Awaited<ReturnType<typeof scratchPostgres>>;
  let a: ServerProcess;
  let b: ServerProcess;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    database = await scratchPostgres(process.env.DATABASE_URL, 'gatehouse_streams');
    // Behind one load balancer, every instance has the same public URL (the tokens' issuer).
    const env = { DATABASE_URL: database.url, REDIS_URL: process.env.REDIS_URL!, PUBLIC_URL: 'https://gatehouse.example', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', LOG_LEVEL: 'warn' };
    a = await startServer(env);
    b = await startServer(env);
  }, 60_000);

  afterAll(async () => {
    for (const c of open) c.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  async function sse(base: string, path: string, token: string, headers: Record<string, string> = {}) {
    const connection = await openSse(`${base}${path}`, { authorization: `Bearer ${token}`, ...headers });
    open.push(connection);
    return connection;
  }
  const call = async (base: string, path: string, body: unknown, token: string) => {
    const res = await postJson(base, path, body, token);
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, string> };
  };

  async function account() {
    const email = `streams-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Streams' })).status).toBe(201);
    const token = ((await (await postJson(a.base, '/v1/auth/login', { username: email, password })).json()) as { access_token: string }).access_token;
    const agent = (await call(a.base, '/v1/agents', { name: 'Bot', model: 'm' }, token)).body;
    const chat = (await call(a.base, '/v1/chats', { agent_id: agent.id }, token)).body;
    const key = (await call(a.base, '/v1/api-keys', { name: 'runtime' }, token)).body;
    return { token, chatId: chat.id!, key: key.key!, keyId: key.id! };
  }

  it('delivers a reply streamed on instance A to a subscriber on instance B, delta by delta, in order', async () => {
    const { token, chatId, key } = await account();
    const onB = await sse(b.base, `/v1/chats/${chatId}/stream`, token);
    expect(onB.status).toBe(200);
    const reply = (await call(a.base, `/v1/chats/${chatId}/messages`, { role: 'assistant', status: 'streaming' }, key)).body;
    const pieces = ['Stream', 'ed ', 'across', ' instances'];
    for (const [i, content] of pieces.entries()) {
      const sentAt = Date.now();
      expect((await call(a.base, `/v1/chats/${chatId}/messages/${reply.id}/deltas`, { sequence: i + 1, content }, key)).status).toBe(200);
      await onB.next((e) => e.event === 'message.delta' && e.data.data?.sequence === i + 1);
      expect(Date.now() - sentAt).toBeLessThan(1_000);
    }
    await call(a.base, `/v1/chats/${chatId}/messages/${reply.id}/complete`, {}, key);
    const done = await onB.next((e) => e.event === 'message.completed');
    expect(done.data.data).toMatchObject({ id: reply.id, content: pieces.join(''), status: 'completed' });
    expect(onB.events.map((e) => e.event)).toEqual(['message.created', 'message.delta', 'message.delta', 'message.delta', 'message.delta', 'message.completed']);

    // Resuming on the other instance replays from the shared database.
    const resumed = await sse(a.base, `/v1/chats/${chatId}/stream`, token, { 'last-event-id': onB.events[1]!.id! });
    await resumed.next((e) => e.event === 'message.completed');
    expect(resumed.events.map((e) => e.data.data?.sequence ?? e.event)).toEqual([2, 3, 4, 'message.completed']);
  });

  it("closes instance B's stream within a second when its key is revoked on instance A", async () => {
    const { token, chatId, key, keyId } = await account();
    const onB = await sse(b.base, `/v1/chats/${chatId}/stream`, key);
    expect(onB.status).toBe(200);
    const revokedAt = Date.now();
    const res = await fetch(`${a.base}/v1/api-keys/${keyId}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(204);
    expect((await onB.ended) - revokedAt).toBeLessThan(1_000);
    expect(onB.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_revoked' } });
    expect((await sse(b.base, `/v1/chats/${chatId}/stream`, key)).status).toBe(401);
  });

  it('counts the streams of both instances against one cap', async () => {
    const { token, chatId } = await account();
    const streams = await Promise.all([a, b, a, b, a].map((instance) => sse(instance.base, `/v1/chats/${chatId}/stream`, token)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await sse(b.base, '/v1/events/stream', token);
    expect(sixth.status).toBe(429);
    expect(JSON.parse(await sixth.body())).toMatchObject({ code: 'too_many_streams' });
  });
});
