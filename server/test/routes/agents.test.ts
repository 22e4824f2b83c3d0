import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoTime } from '../../src/kernel/clock.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

describe(`agents (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.signUp()).tokens.access_token;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, auth = token, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/v1/agents', headers: { ...bearer(auth), ...headers }, payload: body });

  it('creates, reads, updates and deletes an agent', async () => {
    const res = await create({ name: 'Support bot', model: 'gpt-4o', description: 'Answers tickets', instructions: 'Be kind.', metadata: { team: 'support' } });
    expect(res.statusCode).toBe(201);
    const agent = res.json();
    expect(agent).toMatchObject({ id: expect.stringMatching(/^agt_/), name: 'Support bot', model: 'gpt-4o', description: 'Answers tickets', instructions: 'Be kind.', metadata: { team: 'support' } });
    expect(res.headers.location).toBe(`/v1/agents/${agent.id}`);
    expect((await t.request({ method: 'GET', url: `/v1/agents/${agent.id}`, headers: bearer(token) })).json()).toEqual(agent);

    t.clock.advance(1000);
    const patched = await t.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, headers: bearer(token), payload: { name: 'Helpdesk', metadata: {} } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Helpdesk', model: 'gpt-4o', metadata: {}, created_at: agent.created_at });
    expect(patched.json().updated_at > agent.updated_at).toBe(true);

    expect((await t.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, headers: bearer(token) })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: `/v1/agents/${agent.id}`, headers: bearer(token) })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, headers: bearer(token) })).statusCode).toBe(404);
  });

  it('stores strings byte for byte: emoji, RTL, SQL and HTML metacharacters', async () => {
    const tricky = `שלום 👋 '; DROP TABLE agents; -- <script>alert("x")</script> \\ % _ \u200f`;
    const res = await create({ name: 'Tricky', model: 'm', instructions: tricky, metadata: { 'k.1': tricky.slice(0, 100) } });
    expect(res.statusCode).toBe(201);
    const got = (await t.request({ method: 'GET', url: `/v1/agents/${res.json().id}`, headers: bearer(token) })).json();
    expect(got.instructions).toBe(tricky);
    expect(got.metadata['k.1']).toBe(tricky.slice(0, 100));
  });

  it('bounds every field with a field error', async () => {
    const long = (n: number) => 'x'.repeat(n);
    const metadata17 = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'm' }, '/name'],
      [{ name: 'a', model: '' }, '/model'],
      [{ name: 'a', model: 'bad model!' }, '/model'],
      [{ name: long(101), model: 'm' }, '/name'],
      [{ name: 'a', model: 'm', description: long(2001) }, '/description'],
      [{ name: 'a', model: 'm', instructions: long(32_769) }, '/instructions'],
      [{ name: 'a', model: 'm', metadata: metadata17 }, '/metadata'],
      [{ name: 'a', model: 'm', metadata: { k: 1 } }, '/metadata/k'],
      [{ name: 'a', model: 'm', metadata: { [long(41)]: 'v' } }, '/metadata'],
      [{ name: 'a', model: 'm', metadata: { k: long(501) } }, '/metadata/k'],
      [{ name: 'a', model: 'm', owner: 'me' }, '/owner'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    const agent = (await create({ name: 'a', model: 'm' })).json();
    const empty = await t.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, headers: bearer(token), payload: {} });
    expect(empty.statusCode).toBe(400);
  });

  it('is invisible to another account: 404 by id, absent from lists', async () => {
    const mine = (await create({ name: 'Mine', model: 'm' })).json();
    const other = (await t.signUp()).tokens.access_token;
    for (const [method, payload] of [['GET', undefined], ['PATCH', { name: 'stolen' }], ['DELETE', undefined]] as const) {
      const res = await t.request({ method, url: `/v1/agents/${mine.id}`, headers: bearer(other), payload });
      expect(res.statusCode, method).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const list = (await t.request({ method: 'GET', url: '/v1/agents?limit=100', headers: bearer(other) })).json();
    expect(list.data).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/v1/agents/${mine.id}`, headers: bearer(token) })).json().name).toBe('Mine');
  });

  it('needs agents:read / agents:write scopes', async () => {
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(token), payload: { name: 'ro', scopes: ['agents:read'] } })).json().key as string;
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
    const write = await create({ name: 'x', model: 'm' }, key);
    expect(write.statusCode).toBe(403);
    expect(write.json().code).toBe('insufficient_scope');
  });

  it('paginates newest first, stable while rows are inserted between pages', async () => {
    const fresh = (await t.signUp()).tokens.access_token;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await create({ name: `a${i}`, model: 'm' }, fresh)).json().id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const url: string = `/v1/agents?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const body = (await t.request({ method: 'GET', url, headers: bearer(fresh) })).json();
      seen.push(...body.data.map((a: { id: string }) => a.id));
      cursor = body.next_cursor;
      // Someone keeps creating agents while we page: they appear on a fresh first page, never mid-walk.
      await create({ name: `late${page++}`, model: 'm' }, fresh);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('replays an idempotent create and refuses the same key with another body', async () => {
    const key = { 'idempotency-key': 'create-agent-42' };
    const first = await create({ name: 'Once', model: 'm' }, token, key);
    expect(first.statusCode).toBe(201);
    const again = await create({ name: 'Once', model: 'm' }, token, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location); // the replay is the first answer, headers included
    const list = (await t.request({ method: 'GET', url: '/v1/agents?limit=100', headers: bearer(token) })).json();
    expect(list.data.filter((a: { name: string }) => a.name === 'Once')).toHaveLength(1);

    const other = await create({ name: 'Twice', model: 'm' }, token, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');

    // The same body with its keys in another order, and other whitespace, is the same request.
    const keyOrder = { 'idempotency-key': 'create-agent-key-order' };
    const ordered = await t.request({ method: 'POST', url: '/v1/agents', headers: { ...bearer(token), ...keyOrder, 'content-type': 'application/json' }, payload: '{"name":"Ordered","model":"m","metadata":{"a":"1","b":"2"}}' });
    expect(ordered.statusCode).toBe(201);
    const reordered = await t.request({ method: 'POST', url: '/v1/agents', headers: { ...bearer(token), ...keyOrder, 'content-type': 'application/json' }, payload: '{ "metadata": { "b": "2", "a": "1" },\n  "model": "m", "name": "Ordered" }' });
    expect(reordered.statusCode).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.json()).toEqual(ordered.json());

    // Keys are per account: another account may use the same key for its own request.
    const stranger = (await t.signUp()).tokens.access_token;
    expect((await create({ name: 'Theirs', model: 'm' }, stranger, key)).statusCode).toBe(201);

    // After 24 h the key is forgotten.
    t.clock.advance(24 * 3600_000 + 1000);
    const fresh = (await t.login((await t.register()).email, 'Vivid-Otter-Quarry-42')).access_token;
    expect((await create({ name: 'Later', model: 'm' }, fresh, key)).statusCode).toBe(201);
  });

  it('replays the same body whatever its key order, spacing and escapes; another value is another request', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const key = { 'idempotency-key': `order-${Date.now()}` };
    const raw = (json: string) => t.request({ method: 'POST', url: '/v1/agents', headers: { ...bearer(token), ...key, 'content-type': 'application/json' }, payload: json });
    const first = await raw('{"name":"Ordered","model":"m","metadata":{"a":"1","b":"2"}}');
    expect(first.statusCode, first.body).toBe(201);
    for (const same of [
      '{"model":"m","name":"Ordered","metadata":{"a":"1","b":"2"}}',
      '{"metadata":{"b":"2","a":"1"},"model":"m","name":"Ordered"}',
      '{\n  "name" : "Ordered",\t"model":"m",\r\n "metadata": { "b": "2" ,"a":"1" } }\n',
      '{"name":"\\u004frdered","model":"m","metadata":{"a":"1","b":"2"}}',
    ]) {
      const again = await raw(same);
      expect(again.statusCode, same).toBe(201);
      expect(again.headers['idempotent-replayed'], same).toBe('true');
      expect(again.json().id, same).toBe(first.json().id);
    }
    for (const other of [
      '{"name":"Ordered","model":"m","metadata":{"a":"1","b":"3"}}',
      '{"name":"Ordered","model":"m","metadata":{"a":"1"}}',
      '{"name":"Ordered","model":"m","metadata":{"a":"1","b":"2"},"description":"x"}',
      '{"name":"ordered","model":"m","metadata":{"a":"1","b":"2"}}',
    ]) {
      const refused = await raw(other);
      expect(refused.statusCode, other).toBe(422);
      expect(refused.json().code, other).toBe('idempotency_key_reused');
    }
    const list = (await t.request({ method: 'GET', url: '/v1/agents?limit=100', headers: bearer(token) })).json();
    expect(list.data).toHaveLength(1);
  });

  it('honours keys stored with the fingerprint from before canonical comparison, for their 24 h', async () => {
    const user = await t.signUp();
    const token = user.tokens.access_token;
    const body = { name: 'Legacy', model: 'm' };
    // A row as stored before: SHA-256 hex of "POST <url>\n<body as sent>", and the answer it got.
    const stored = JSON.stringify({ id: 'agt_01m00000000000000000000000', name: 'Legacy', model: 'm' });
    await t.deps.database.db.insertInto('idempotency_keys').values({
      org_id: await t.personalOrgId(user.id), key: 'legacy-key', request_hash: createHash('sha256').update(`POST /v1/agents\n${JSON.stringify(body)}`).digest('hex'),
      status_code: 201, response_body: stored, created_at: isoTime(t.clock.now()),
    }).execute();
    const replay = await create(body, token, { 'idempotency-key': 'legacy-key' });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(stored);
    const other = await create({ name: 'Not legacy', model: 'm' }, token, { 'idempotency-key': 'legacy-key' });
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');
  });

  it('lets exactly one of concurrent same-key creates through', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const key = { 'idempotency-key': `race-${Date.now()}` };
    const results = await Promise.all(Array.from({ length: 5 }, () => create({ name: 'Race', model: 'm' }, token, key)));
    const created = new Set(results.filter((r) => r.statusCode === 201).map((r) => r.json().id));
    expect(created.size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.statusCode);
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const res = await create({ name: 'x', model: 'm' }, token, { 'idempotency-key': 'x'.repeat(256) });
    expect(res.statusCode).toBe(400);
  });
});
