import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

describe(`chats and messages (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  let orgId: string;
  let agentId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const user = await t.signUp();
    token = user.tokens.access_token;
    orgId = await t.personalOrgId(user.id);
    agentId = (await t.request({ method: 'POST', url: '/v1/agents', headers: bearer(token), payload: { name: 'Bot', model: 'm' } })).json().id;
  });
  afterAll(() => t.close());

  const post = (url: string, payload: unknown, auth = token, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url, headers: { ...bearer(auth), ...headers }, payload: payload as object });
  const get = (url: string, auth = token) => t.request({ method: 'GET', url, headers: bearer(auth) });

  it('starts a chat with an agent, posts messages and reads them back newest first', async () => {
    const chat = await post('/v1/chats', { agent_id: agentId, title: '  Refund question ' });
    expect(chat.statusCode).toBe(201);
    expect(chat.json()).toMatchObject({ id: expect.stringMatching(/^cht_/), agent_id: agentId, title: 'Refund question' });
    const chatId = chat.json().id as string;
    const first = await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'Where is my refund?' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ id: expect.stringMatching(/^msg_/), chat_id: chatId, role: 'user', content: 'Where is my refund?' });
    const reply = await post(`/v1/chats/${chatId}/messages`, { role: 'assistant', content: 'On its way.' });
    expect(reply.statusCode).toBe(201);
    const list = (await get(`/v1/chats/${chatId}/messages`)).json();
    expect(list.data.map((m: { content: string }) => m.content)).toEqual(['On its way.', 'Where is my refund?']);
  });

  it('records chat.message.created in the outbox in the same transaction, carrying the agent id', async () => {
    const chatId = (await post('/v1/chats', { agent_id: agentId })).json().id as string;
    const message = (await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'hello' })).json();
    const events = await t.deps.database.db.selectFrom('events').selectAll().where('org_id', '=', orgId).where('type', '=', 'chat.message.created').execute();
    const event = events.find((e) => JSON.parse(e.data).id === message.id);
    expect(event).toBeDefined();
    expect(JSON.parse(event!.data)).toEqual({ ...message, agent_id: agentId });
  });

  it('refuses an agent that is not the account\'s, without revealing whether it exists', async () => {
    const other = await t.signUp();
    const theirAgent = (await post('/v1/agents', { name: 'Theirs', model: 'm' }, other.tokens.access_token)).json().id as string;
    for (const agent_id of [theirAgent, 'agt_01m80h15sxexf8nyy2raa7xwfh', 'nonsense']) {
      const res = await post('/v1/chats', { agent_id });
      expect(res.statusCode, agent_id).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ field: '/agent_id', code: 'not_found' });
    }
  });

  it('filters by agent and isolates accounts on chats and messages', async () => {
    const secondAgent = (await post('/v1/agents', { name: 'Second', model: 'm' })).json().id as string;
    const chatA = (await post('/v1/chats', { agent_id: agentId })).json().id as string;
    const chatB = (await post('/v1/chats', { agent_id: secondAgent })).json().id as string;
    const onlyB = (await get(`/v1/chats?agent_id=${secondAgent}`)).json();
    expect(onlyB.data.map((c: { id: string }) => c.id)).toEqual([chatB]);
    expect((await get('/v1/chats?limit=100')).json().data.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([chatA, chatB]));

    const stranger = (await t.signUp()).tokens.access_token;
    expect((await get(`/v1/chats/${chatA}`, stranger)).statusCode).toBe(404);
    expect((await get(`/v1/chats/${chatA}/messages`, stranger)).statusCode).toBe(404);
    expect((await post(`/v1/chats/${chatA}/messages`, { role: 'user', content: 'hi' }, stranger)).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/chats/${chatA}`, headers: bearer(stranger) })).statusCode).toBe(404);
    expect((await get('/v1/chats?limit=100', stranger)).json().data).toEqual([]);
    expect((await get(`/v1/chats?agent_id=${agentId}`, stranger)).json().data).toEqual([]);
  });

  it('bounds content: NUL refused, 32,768 characters accepted, one more refused', async () => {
    const chatId = (await post('/v1/chats', { agent_id: agentId })).json().id as string;
    expect((await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'a\u0000b' })).statusCode).toBe(400);
    expect((await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: '' })).statusCode).toBe(400);
    expect((await post(`/v1/chats/${chatId}/messages`, { role: 'system', content: 'x' })).statusCode).toBe(400);
    expect((await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'é'.repeat(32_768) })).statusCode).toBe(201);
    expect((await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'x'.repeat(32_769) })).statusCode).toBe(400);
  });

  it('deleting an agent deletes its chats and messages', async () => {
    const doomed = (await post('/v1/agents', { name: 'Doomed', model: 'm' })).json().id as string;
    const chatId = (await post('/v1/chats', { agent_id: doomed })).json().id as string;
    await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'bye' });
    expect((await t.request({ method: 'DELETE', url: `/v1/agents/${doomed}`, headers: bearer(token) })).statusCode).toBe(204);
    expect((await get(`/v1/chats/${chatId}`)).statusCode).toBe(404);
    const rows = await t.deps.database.db.selectFrom('messages').select('id').where('chat_id', '=', chatId).execute();
    expect(rows).toHaveLength(0);
  });

  it('replays an idempotent message post', async () => {
    const chatId = (await post('/v1/chats', { agent_id: agentId })).json().id as string;
    const key = { 'idempotency-key': `msg-${chatId}` };
    const a = await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'once' }, token, key);
    const b = await post(`/v1/chats/${chatId}/messages`, { role: 'user', content: 'once' }, token, key);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json()).toEqual(a.json());
    expect((await get(`/v1/chats/${chatId}/messages`)).json().data).toHaveLength(1);
  });

  it('needs chats:read / chats:write scopes', async () => {
    const key = (await post('/v1/api-keys', { name: 'agents only', scopes: ['agents:read'] })).json().key as string;
    expect((await get('/v1/chats', key)).json().code).toBe('insufficient_scope');
    expect((await post('/v1/chats', { agent_id: agentId }, key)).json().code).toBe('insufficient_scope');
  });
});
