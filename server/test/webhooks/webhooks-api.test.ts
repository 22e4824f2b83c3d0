import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PATTERNS } from '../../src/platform/webhooks/webhooks.schemas.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * The endpoint API with the SSRF guard on (WEBHOOK_ALLOW_PRIVATE unset): shapes, bounds, scopes,
 * isolation between accounts. URLs that must be accepted need a public address; this machine
 * may only talk to loopback, so the suite stops the delivery worker first: nothing is ever sent.
 */
describe(`webhook endpoints API (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  // A public IP literal, accepted by the guard without DNS; never contacted (worker stopped).
  const PUBLIC_URL = 'https://203.0.114.10/hooks';
  beforeAll(async () => {
    t = await createTestApp();
    await t.deps.webhooks.worker.stop();
    token = (await t.signUp()).tokens.access_token;
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, auth = token) =>
    t.request({ method, url, headers: bearer(auth), ...(payload !== undefined ? { payload: payload as object } : {}) });
  const create = (body: Record<string, unknown>, auth = token) => call('POST', '/v1/webhooks', { events: ['agent.*'], ...body }, auth);

  it('creates an endpoint, shows the secret once, never again', async () => {
    const res = await create({ url: PUBLIC_URL, events: ['agent.created', 'chat.*'], description: 'CRM sync' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ id: expect.stringMatching(/^whk_/), url: PUBLIC_URL, events: ['agent.created', 'chat.*'], description: 'CRM sync', enabled: true, disabled_reason: null });
    expect(res.headers.location).toBe(`/v1/webhooks/${body.id}`);
    expect(body.secret).toMatch(/^whsec_/);
    expect(Buffer.from(body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const got = await call('GET', `/v1/webhooks/${body.id}`);
    const list = await call('GET', '/v1/webhooks');
    for (const r of [got, list]) {
      expect(r.statusCode).toBe(200);
      expect(r.body).not.toContain(body.secret.slice(6, 20));
      expect(r.body).not.toContain('"secret"');
    }
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(body.id);
    expect((await call('DELETE', `/v1/webhooks/${body.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/v1/webhooks/${body.id}`)).statusCode).toBe(404);
  });

  it('updates url, events, description and enabled', async () => {
    const id = (await create({ url: PUBLIC_URL })).json().id;
    const res = await call('PATCH', `/v1/webhooks/${id}`, { url: 'https://203.0.114.11/new', events: ['*'], description: null, enabled: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ url: 'https://203.0.114.11/new', events: ['*'], description: null, enabled: false, disabled_reason: expect.any(String) });
    expect((await call('POST', `/v1/webhooks/${id}/test`)).json().code).toBe('conflict');
    expect((await call('PATCH', `/v1/webhooks/${id}`, { enabled: true })).json()).toMatchObject({ enabled: true, disabled_reason: null });
    const refused = await call('PATCH', `/v1/webhooks/${id}`, { url: 'http://10.0.0.1/' });
    expect(refused.json().errors).toEqual([expect.objectContaining({ field: '/url', code: 'private_address' })]);
    expect((await call('PATCH', `/v1/webhooks/${id}`, {})).statusCode).toBe(400);
    await call('DELETE', `/v1/webhooks/${id}`);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'private_address'],
    ['http://localhost/', 'private_address'],
    ['http://169.254.169.254/latest/meta-data/', 'private_address'],
    ['http://[::1]/', 'private_address'],
    ['http://10.0.0.1/', 'private_address'],
    ['http://0x7f000001/', 'private_address'],
    ['http://[::ffff:169.254.169.254]/', 'private_address'],
    ['http://100.64.0.1/', 'private_address'],
    ['http://0.0.0.0/', 'private_address'],
    ['http://2130706433/', 'private_address'], // decimal, octal, short and hex notations of 127.0.0.1
    ['http://0177.0.0.1/', 'private_address'],
    ['http://127.1/', 'private_address'],
    ['http://0x7f.0.0.1/', 'private_address'],
    ['http://[::ffff:0:0]/', 'private_address'],
    ['http://[::ffff:7f00:1]/', 'private_address'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'private_address'],
    ['http://[64:ff9b:1::a00:1]/', 'private_address'],
    ['http://[64:ff9b:1::808:808]/', 'private_address'],
    ['http://[2001::1]/', 'private_address'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'private_address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'private_address'],
    ['http://[2002:a00:1::]/', 'private_address'],
    ['ftp://example.com/file', 'unsupported_scheme'],
    ['https://user:pass@203.0.114.10/', 'credentials_in_url'],
    ['not a url', 'invalid_format'],
  ])('refuses %s with %s', async (url, code) => {
    const res = await create({ url });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: '/url', code })] });
  });

  it('says what kind of address it refuses, never which address a host resolved to', async () => {
    // localhost resolves to 127.0.0.1 and ::1 here: a refusal naming them would let any account
    // map internal host names through the server's resolver.
    for (const url of ['http://localhost/hook', 'http://LocalHost:8080/x']) {
      const res = await create({ url });
      expect(res.statusCode).toBe(400);
      const error = res.json().errors[0];
      expect(error).toMatchObject({ field: '/url', code: 'private_address' });
      expect(error.message).toMatch(/non-public address \(loopback\)/);
      for (const address of ['127.0.0.1', '::1', '127.']) expect(res.body).not.toContain(address);
    }
  });

  it('bounds every field', async () => {
    const errorsOf = async (body: Record<string, unknown>) => (await create({ url: PUBLIC_URL, ...body })).json().errors;
    expect(await errorsOf({ url: `https://203.0.114.10/${'a'.repeat(2048)}` })).toEqual([expect.objectContaining({ field: '/url', code: 'too_long' })]);
    expect(await errorsOf({ events: [] })).toEqual([expect.objectContaining({ field: '/events', code: 'too_few' })]);
    expect(await errorsOf({ events: ['agent.created', 'agent.created'] })).toEqual([expect.objectContaining({ field: '/events', code: 'duplicate' })]);
    expect(await errorsOf({ events: ['agent.exploded'] })).toEqual([expect.objectContaining({ field: '/events/0', code: 'invalid_value' })]);
    expect(await errorsOf({ events: ['ag*'] })).toEqual([expect.objectContaining({ field: '/events/0', code: 'invalid_value' })]);
    expect(EVENT_PATTERNS.length).toBeGreaterThanOrEqual(21);
    expect(await errorsOf({ events: EVENT_PATTERNS.slice(0, 21) })).toEqual([expect.objectContaining({ field: '/events', code: 'too_many' })]);
    expect(await errorsOf({ description: 'd'.repeat(501) })).toEqual([expect.objectContaining({ field: '/description', code: 'too_long' })]);
    expect(await errorsOf({ secret: 'mine' })).toEqual([expect.objectContaining({ field: '/secret', code: 'unknown_field' })]);
    const ok = await create({ url: PUBLIC_URL, events: EVENT_PATTERNS.slice(0, 20), description: 'd'.repeat(500) });
    expect(ok.statusCode).toBe(201);
    await call('DELETE', `/v1/webhooks/${ok.json().id}`);
  });

  it('allows 20 endpoints per account, then 422 limit_reached', async () => {
    const own = (await t.signUp()).tokens.access_token;
    for (let i = 0; i < 20; i++) expect((await create({ url: `${PUBLIC_URL}/${i}` }, own)).statusCode).toBe(201);
    const over = await create({ url: PUBLIC_URL }, own);
    expect(over.statusCode).toBe(422);
    expect(over.json()).toMatchObject({ code: 'limit_reached', limit: 20 });
    const page = await call('GET', '/v1/webhooks?limit=15', undefined, own);
    expect(page.json().data).toHaveLength(15);
    const rest = await call('GET', `/v1/webhooks?limit=15&cursor=${page.json().next_cursor}`, undefined, own);
    expect(rest.json()).toMatchObject({ next_cursor: null });
    expect(rest.json().data).toHaveLength(5);
  });

  it('needs the webhooks scopes', async () => {
    const key = (await call('POST', '/v1/api-keys', { name: 'read only', scopes: ['webhooks:read'] })).json().key;
    expect((await call('GET', '/v1/webhooks', undefined, key)).statusCode).toBe(200);
    const res = await create({ url: PUBLIC_URL }, key);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
  });

  it('isolates accounts: 404 by id, absent from lists, deliveries included', async () => {
    const id = (await create({ url: PUBLIC_URL, events: ['webhook.test'] })).json().id;
    expect((await call('POST', `/v1/webhooks/${id}/test`)).statusCode).toBe(202); // a delivery to hide
    const other = (await t.signUp()).tokens.access_token;
    for (const [method, url, payload] of [
      ['GET', `/v1/webhooks/${id}`], ['PATCH', `/v1/webhooks/${id}`, { description: 'x' }], ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/test`], ['GET', `/v1/webhooks/${id}/deliveries`], ['GET', '/v1/webhooks/whk_nope'],
    ] as const) {
      const res = await call(method, url, payload, other);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect((await call('GET', '/v1/webhooks', undefined, other)).json().data).toEqual([]);
    expect((await call('GET', `/v1/webhooks/${id}`)).statusCode).toBe(200);
    expect((await call('GET', `/v1/webhooks/${id}/deliveries`)).json().data).toEqual([expect.objectContaining({ event_type: 'webhook.test', status: 'pending' })]);
    expect((await call('GET', '/v1/webhooks?cursor=bad')).statusCode).toBe(400);
    await call('DELETE', `/v1/webhooks/${id}`);
  });

  it('deleting the account removes its endpoints, events and deliveries', async () => {
    const user = await t.signUp();
    const auth = user.tokens.access_token;
    const orgId = await t.personalOrgId(user.id);
    const id = (await create({ url: PUBLIC_URL, events: ['*'] }, auth)).json().id;
    const db = t.deps.database.db;
    expect((await call('POST', `/v1/webhooks/${id}/test`, undefined, auth)).statusCode).toBe(202);
    const count = async (table: 'webhook_endpoints' | 'deliveries' | 'events') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow()).n);
    expect(await count('deliveries')).toBe(1);
    const del = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(auth), payload: { password: user.password } });
    expect(del.statusCode).toBe(202);
    // Kept through the grace period (a sign-in restores the account), gone with the purge after it.
    expect(await count('webhook_endpoints')).toBe(1);
    t.clock.advance(31 * 86_400_000);
    await t.deps.accountPurge.purgeOnce();
    expect([await count('webhook_endpoints'), await count('deliveries'), await count('events')]).toEqual([0, 0, 0]);
  });
});
