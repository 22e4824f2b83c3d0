import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { openSse, type SseConnection } from '../sse-client.js';

/**
 * Live streams over real HTTP (the app listens on a loopback port): chat streams and the account
 * stream, streaming replies, resume, revocation, the per-tier cap. Two real instances are in
 * test/multi-instance-streams.test.ts.
 */
describe(`live streams (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  const open: SseConnection[] = [];
  beforeAll(async () => {
    t = await createTestApp({ env: { STREAM_HEARTBEAT_SECONDS: '1' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await t.close();
  });

  async function stream(path: string, token: string, headers: Record<string, string> = {}): Promise<SseConnection> {
    const connection = await openSse(`${base}${path}`, { ...bearer(token), ...headers });
    open.push(connection);
    return connection;
  }
  const post = async (url: string, token: string, payload?: object) => {
    const res = await t.request({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  };

  async function account() {
    const user = await t.signUp();
    const token = user.tokens.access_token;
    const agent = (await post('/v1/agents', token, { name: 'Bot', model: 'm' })).body;
    const chat = (await post('/v1/chats', token, { agent_id: agent.id })).body;
    return { user, token, agentId: agent.id as string, chatId: chat.id as string };
  }

  it('streams a chat: messages, a reply written in deltas, its completion and a rename, in order, each with an id', async () => {
    const { token, chatId } = await account();
    const sse = await stream(`/v1/chats/${chatId}/stream`, token);
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(sse.headers['cache-control']).toBe('no-store');
    expect(sse.headers['ratelimit']).toMatch(/^"minute";r=\d+;t=\d+$/);

    await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content: 'Hello?' });
    const reply = (await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant', status: 'streaming' })).body;
    expect(reply).toMatchObject({ role: 'assistant', content: '', status: 'streaming' });
    for (const [i, piece] of ['Hi', ' there', '!'].entries()) {
      expect((await post(`/v1/chats/${chatId}/messages/${reply.id}/deltas`, token, { sequence: i + 1, content: piece })).status).toBe(200);
    }
    // Anyone reading the list meanwhile sees the text so far.
    const list = await t.request({ method: 'GET', url: `/v1/chats/${chatId}/messages`, headers: bearer(token) });
    expect(list.json().data[0]).toMatchObject({ id: reply.id, content: 'Hi there!', status: 'streaming', delta_sequence: 3 });
    expect((await post(`/v1/chats/${chatId}/messages/${reply.id}/complete`, token)).body).toMatchObject({ content: 'Hi there!', status: 'completed' });
    await t.request({ method: 'PATCH', url: `/v1/chats/${chatId}`, headers: bearer(token), payload: { title: 'Greetings' } });

    await sse.next((e) => e.event === 'chat.updated');
    expect(sse.events.map((e) => e.event)).toEqual(['message.created', 'message.created', 'message.delta', 'message.delta', 'message.delta', 'message.completed', 'chat.updated']);
    const ids = sse.events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    for (const e of sse.events) expect(e.data).toMatchObject({ id: expect.stringMatching(/^evt_/), type: e.event, created_at: expect.any(String) });
    expect(sse.events.slice(2, 5).map((e) => e.data.data)).toEqual([1, 2, 3].map((sequence, i) => ({ chat_id: chatId, message_id: reply.id, sequence, content: ['Hi', ' there', '!'][i] })));
    expect(sse.events[5]!.data.data).toMatchObject({ id: reply.id, content: 'Hi there!', status: 'completed' });
    expect(sse.events[6]!.data.data).toMatchObject({ id: chatId, title: 'Greetings' });
  });

  it('resumes after a dropped connection with Last-Event-ID: what was missed, once, then live', async () => {
    const { token, chatId } = await account();
    const first = await stream(`/v1/chats/${chatId}/stream`, token);
    await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content: 'one' });
    const seen = await first.next((e) => e.event === 'message.created');
    first.close();
    for (const content of ['two', 'three']) await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content });

    const resumed = await stream(`/v1/chats/${chatId}/stream`, token, { 'last-event-id': seen.id! });
    await resumed.next((e) => e.data.data?.content === 'three');
    await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content: 'four' });
    await resumed.next((e) => e.data.data?.content === 'four');
    expect(resumed.events.map((e) => e.data.data?.content)).toEqual(['two', 'three', 'four']);
    // The query parameter works the same, for clients that cannot set headers.
    const byQuery = await stream(`/v1/chats/${chatId}/stream?last_event_id=${seen.id}`, token);
    await byQuery.next((e) => e.data.data?.content === 'four');
    expect(byQuery.events.map((e) => e.data.data?.content)).toEqual(['two', 'three', 'four']);
  });

  it('keeps the events of a reply in order and complete while the stream opens under a burst of deltas', async () => {
    const { token, chatId } = await account();
    const reply = (await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant', status: 'streaming' })).body;
    const writer = (async () => {
      for (let i = 1; i <= 60; i++) await post(`/v1/chats/${chatId}/messages/${reply.id}/deltas`, token, { sequence: i, content: `${i},` });
      await post(`/v1/chats/${chatId}/messages/${reply.id}/complete`, token);
    })();
    // Opened while the deltas are being written: replay (from its message) hands over to live exactly.
    const sse = await stream(`/v1/chats/${chatId}/stream`, token, { 'last-event-id': '0' });
    await writer;
    await sse.next((e) => e.event === 'message.completed');
    const text = sse.events.filter((e) => e.event === 'message.delta').map((e) => e.data.data!.content).join('');
    expect(text).toBe(Array.from({ length: 60 }, (_, i) => `${i + 1},`).join(''));
    expect(new Set(sse.events.map((e) => e.id)).size).toBe(sse.events.length);
  });

  it('treats deltas as idempotent by sequence, refuses gaps, finished messages and overlong text', async () => {
    const { token, chatId } = await account();
    const reply = (await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant', status: 'streaming', content: 'A' })).body;
    const delta = (sequence: number, content: string) => post(`/v1/chats/${chatId}/messages/${reply.id}/deltas`, token, { sequence, content });
    expect((await delta(1, 'B')).body.content).toBe('AB');
    const again = await delta(1, 'B');
    expect(again).toMatchObject({ status: 200, body: { content: 'AB' } });
    expect(await delta(3, 'D')).toMatchObject({ status: 409, body: { code: 'conflict', expected_sequence: 2 } });
    expect(await delta(2, 'x'.repeat(32_767))).toMatchObject({ status: 422, body: { code: 'limit_reached' } });
    expect((await post(`/v1/chats/${chatId}/messages/${reply.id}/complete`, token)).body.status).toBe('completed');
    expect((await post(`/v1/chats/${chatId}/messages/${reply.id}/complete`, token)).status).toBe(200);
    expect(await delta(2, 'C')).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect((await delta(1, 'B')).status).toBe(200);
    const events = await t.deps.database.db.selectFrom('events').select('type').where('chat_id', '=', chatId).execute();
    expect(events.map((e) => e.type).filter((type) => type !== 'chat.created')).toEqual(['chat.message.created', 'chat.message.delta', 'chat.message.completed']);

    expect(await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', status: 'streaming' })).toMatchObject({ status: 400, body: { errors: [{ field: '/status' }] } });
    expect(await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant' })).toMatchObject({ status: 400, body: { errors: [{ field: '/content' }] } });
    const whole = (await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant', content: 'done' })).body;
    expect(await post(`/v1/chats/${chatId}/messages/${whole.id}/deltas`, token, { sequence: 1, content: 'x' })).toMatchObject({ status: 409 });
    expect((await post(`/v1/chats/${chatId}/messages/msg_01jd4z3k8x2v6n9q7w5e3r1t0y/deltas`, token, { sequence: 1, content: 'x' })).status).toBe(404);
    expect((await post(`/v1/chats/${chatId}/messages/nonsense/complete`, token)).status).toBe(404);
  });

  it("answers another account's chat with 404, a missing scope with 403 and a bad Last-Event-ID with 400, as problem+json", async () => {
    const owner = await account();
    const stranger = await account();
    const foreign = await stream(`/v1/chats/${owner.chatId}/stream`, stranger.token);
    expect(foreign.status).toBe(404);
    expect(JSON.parse(await foreign.body())).toMatchObject({ code: 'not_found' });
    expect((await stream('/v1/chats/cht_nope/stream', owner.token)).status).toBe(404);
    const key = (await post('/v1/api-keys', owner.token, { name: 'agents only', scopes: ['agents:read'] })).body.key as string;
    const scoped = await stream(`/v1/chats/${owner.chatId}/stream`, key);
    expect(scoped.status).toBe(403);
    expect(JSON.parse(await scoped.body())).toMatchObject({ code: 'insufficient_scope' });
    const bad = await stream(`/v1/chats/${owner.chatId}/stream`, owner.token, { 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await stream(`/v1/chats/${owner.chatId}/stream`, 'junk')).status).toBe(401);
  });

  it('streams the account: what the credential may read, of the types asked for', async () => {
    const { token, chatId } = await account();
    const all = await stream('/v1/events/stream', token);
    const onlyAgents = await stream('/v1/events/stream?types=agent.*', token);
    const emptyTypes = await stream('/v1/events/stream?types=', token); // asks for nothing in particular: all
    const key = (await post('/v1/api-keys', token, { name: 'chats', scopes: ['chats:read'] })).body.key as string;
    const viaKey = await stream('/v1/events/stream', key);
    await post('/v1/agents', token, { name: 'Second', model: 'm' });
    await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content: 'hi' });
    await post('/v1/api-keys', token, { name: 'another' });

    await expect.poll(() => all.events.map((e) => e.event)).toEqual(['api_key.created', 'agent.created', 'chat.message.created', 'api_key.created']);
    // The last event reached every stream by now (one feed for the account): nothing else is coming.
    await onlyAgents.next((e) => e.event === 'agent.created');
    await viaKey.next((e) => e.event === 'chat.message.created');
    expect(onlyAgents.events.map((e) => e.event)).toEqual(['agent.created']);
    await emptyTypes.next((e) => e.event === 'chat.message.created');
    expect(viaKey.events.map((e) => e.event)).toEqual(['chat.message.created']);

    expect((await stream('/v1/events/stream?types=nonsense.*', token)).status).toBe(400);
    const forbidden = await stream('/v1/events/stream?types=api_key.*', key);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(await forbidden.body())).toMatchObject({ code: 'insufficient_scope' });
  });

  it("closes a key's stream when the key loses the scope or is rolled, and the old secret cannot open one after its grace", async () => {
    const { token, chatId } = await account();
    const keyBody = (await post('/v1/api-keys', token, { name: 'watcher', scopes: ['chats:read', 'agents:read'] })).body;
    const narrowed = await stream(`/v1/chats/${chatId}/stream`, keyBody.key);
    const patched = await t.request({ method: 'PATCH', url: `/v1/api-keys/${keyBody.id}`, headers: bearer(token), payload: { scopes: ['agents:read'] } });
    expect(patched.statusCode).toBe(200);
    await narrowed.ended;
    expect(narrowed.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_changed' } });
    expect((await stream(`/v1/chats/${chatId}/stream`, keyBody.key)).status).toBe(403);

    const second = (await post('/v1/api-keys', token, { name: 'rolled', scopes: ['chats:read'] })).body;
    const beforeRoll = await stream(`/v1/chats/${chatId}/stream`, second.key);
    const rolled = await t.request({ method: 'POST', url: `/v1/api-keys/${second.id}/roll`, headers: bearer(token), payload: { grace_seconds: 60 } });
    expect(rolled.statusCode).toBe(200);
    await beforeRoll.ended;
    expect(beforeRoll.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_changed' } });
    // Within the grace the old secret opens a stream again; it ends when the grace does.
    const inGrace = await stream(`/v1/chats/${chatId}/stream`, second.key);
    expect(inGrace.status).toBe(200);
    t.clock.advance(61_000);
    await inGrace.ended;
    expect(inGrace.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'token_expired' } });
    expect((await stream(`/v1/chats/${chatId}/stream`, second.key)).status).toBe(401);
  });

  it('closes a stream within a second when its key is revoked, its session ends, or the account is disabled', async () => {
    const { user, token, chatId } = await account();
    const keyBody = (await post('/v1/api-keys', token, { name: 'runtime' })).body;
    const viaKey = await stream(`/v1/chats/${chatId}/stream`, keyBody.key);
    const other = await t.login(user.email, user.password);
    const viaSession = await stream(`/v1/chats/${chatId}/stream`, other.access_token);
    const keepsGoing = await stream(`/v1/chats/${chatId}/stream`, token);

    let revokedAt = Date.now();
    expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${keyBody.id}`, headers: bearer(token) })).statusCode).toBe(204);
    expect((await viaKey.ended) - revokedAt).toBeLessThan(1_000);
    expect(viaKey.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_revoked' } });

    revokedAt = Date.now();
    expect((await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(other.access_token) })).statusCode).toBe(204);
    expect((await viaSession.ended) - revokedAt).toBeLessThan(1_000);
    expect(viaSession.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_revoked' } });

    await post(`/v1/chats/${chatId}/messages`, token, { role: 'user', content: 'still here' });
    await keepsGoing.next((e) => e.event === 'message.created');

    const disabledAt = Date.now();
    await t.deps.database.db.updateTable('users').set({ disabled: 1 }).where('id', '=', user.id).execute();
    await t.deps.accounts.changed(user.id);
    expect((await keepsGoing.ended) - disabledAt).toBeLessThan(1_000);
    expect(keepsGoing.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'account_disabled' } });
  });

  it('refuses a stream whose key is revoked, or whose chat is deleted, while the stream is being set up', async () => {
    const { user, token, chatId } = await account();
    const key = (await post('/v1/api-keys', token, { name: 'runtime' })).body;
    // Each change lands in the window between the checks of the request and the stream joining
    // the feed: the service method is wrapped, once, to make it there.
    const service = t.deps.streams.service;
    const openOrganization = service.openOrganization;
    service.openOrganization = async (...args) => {
      service.openOrganization = openOrganization;
      await t.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, headers: bearer(token) });
      return openOrganization(...args);
    };
    const revoked = await stream('/v1/events/stream', key.key);
    expect(revoked.status).toBe(401);

    const chats = t.deps.chats;
    const get = chats.get;
    chats.get = async (...args) => {
      chats.get = get;
      const row = await get(...args);
      await chats.delete(user.id, chatId);
      return row;
    };
    const deleted = await stream(`/v1/chats/${chatId}/stream`, token);
    expect(deleted.status).toBe(404);
    // Neither holds a slot: the free account can still open its five.
    const five = await Promise.all(Array.from({ length: 5 }, () => stream('/v1/events/stream', token)));
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    for (const s of five) s.close();
  });

  it('ends a stream when its access token expires, and when its chat or agent is deleted', async () => {
    const { token, chatId, agentId } = await account();
    const expiring = await stream('/v1/events/stream', token);
    const chatStream = await stream(`/v1/chats/${chatId}/stream`, token);
    await t.request({ method: 'DELETE', url: `/v1/chats/${chatId}`, headers: bearer(token) });
    await chatStream.ended;
    expect(chatStream.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'chat_deleted' } });

    const second = (await post('/v1/chats', token, { agent_id: agentId })).body.id as string;
    const secondStream = await stream(`/v1/chats/${second}/stream`, token);
    await t.request({ method: 'DELETE', url: `/v1/agents/${agentId}`, headers: bearer(token) });
    await secondStream.ended;
    expect(secondStream.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'chat_deleted' } });

    t.clock.advance((t.config.accessTokenTtl + 1) * 1000);
    await expiring.ended;
    expect(expiring.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'token_expired' } });
  });

  it('sends heartbeats on an idle stream', async () => {
    const { token, chatId } = await account();
    const sse = await stream(`/v1/chats/${chatId}/stream`, token);
    await expect.poll(() => sse.comments, { timeout: 3_000 }).toBeGreaterThan(0);
    expect(sse.events).toEqual([]);
  });

  it('caps open streams per organization by tier (free: 5) with 429 too_many_streams, and frees a slot when one closes', async () => {
    const { token, chatId } = await account();
    const five = await Promise.all(Array.from({ length: 5 }, () => stream(`/v1/chats/${chatId}/stream`, token)));
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await stream('/v1/events/stream', token);
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBe('5');
    expect(sixth.headers['ratelimit']).toBeDefined();
    expect(JSON.parse(await sixth.body())).toMatchObject({ code: 'too_many_streams', limit: 5 });
    five[0]!.close();
    await expect.poll(async () => {
      const again = await stream('/v1/events/stream', token);
      again.close();
      return again.status;
    }, { timeout: 3_000 }).toBe(200);
  });

  it('lets an admin give an enterprise account its own stream cap, shown in its limits', async () => {
    const { user, token, chatId } = await account();
    const admin = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    const patch = (payload: object) => t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(admin.tokens.access_token), payload });
    expect((await patch({ limits: { per_minute: 500, per_day: 5000, streams: 2 } })).statusCode).toBe(400); // custom limits: enterprise only
    const changed = await patch({ tier: 'enterprise', limits: { per_minute: 500, per_day: 5000, streams: 2 } });
    expect(changed.json()).toMatchObject({ limits: { per_minute: 500, per_day: 5000, streams: 2 }, custom_limits: { streams: 2 } });
    const me = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) });
    expect(me.json().limits).toEqual({ per_minute: 500, per_day: 5000, streams: 2 });
    const two = [await stream(`/v1/chats/${chatId}/stream`, token), await stream('/v1/events/stream', token)];
    expect(two.map((s) => s.status)).toEqual([200, 200]);
    const third = await stream('/v1/events/stream', token);
    expect(third.status).toBe(429);
    expect(JSON.parse(await third.body())).toMatchObject({ code: 'too_many_streams', limit: 2 });
    // Back to the tier's numbers: enterprise without custom limits holds 50.
    expect((await patch({ limits: null })).json()).toMatchObject({ limits: { streams: 50 }, custom_limits: null });
  });

  it('answers HEAD with the head of a stream and holds no slot', async () => {
    const { token, chatId } = await account();
    for (let i = 0; i < 6; i++) {
      const head = await fetch(`${base}/v1/chats/${chatId}/stream`, { method: 'HEAD', headers: bearer(token) });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    }
    const sse = await stream(`/v1/chats/${chatId}/stream`, token);
    expect(sse.status).toBe(200);
  });

  it('counts opening a stream as one request and the events on it as none', async () => {
    const { token, chatId } = await account();
    const usage = async () => (await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(token) })).json().minute.used as number;
    const before = await usage();
    const sse = await stream(`/v1/chats/${chatId}/stream`, token);
    const reply = (await post(`/v1/chats/${chatId}/messages`, token, { role: 'assistant', content: 'x' })).body;
    await sse.next((e) => e.data.data?.id === reply.id);
    expect((await usage()) - before).toBe(2);
  });
});
