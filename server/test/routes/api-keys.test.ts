import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

describe(`API keys (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.signUp()).tokens.access_token;
  });
  afterAll(() => t.close());

  const createKey = async (body: Record<string, unknown> = { name: 'ci' }, auth = token) => {
    const res = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(auth), payload: body });
    return res;
  };

  it('creates a key shown once, in the gth_ format, that authenticates GET /v1/agents', async () => {
    const res = await createKey({ name: 'Build server' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.key).toMatch(/^gth_[0-9A-Za-z]{40}$/);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_/), name: 'Build server', prefix: created.key.slice(0, 8), last_four: created.key.slice(-4),
      scopes: ['agents:read', 'agents:write', 'chats:read', 'chats:write', 'webhooks:read', 'webhooks:write', 'usage:read'],
      expires_at: null, last_used_at: null,
    });
    expect(res.headers.location).toBe(`/v1/api-keys/${created.id}`);

    const agents = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(created.key) });
    expect(agents.statusCode).toBe(200);
    expect(agents.json()).toEqual({ data: [], next_cursor: null });

    const shown = await t.request({ method: 'GET', url: `/v1/api-keys/${created.id}`, headers: bearer(token) });
    expect(shown.statusCode).toBe(200);
    expect(shown.json().key).toBeUndefined();
    expect(shown.body).not.toContain(created.key);
    const listed = await t.request({ method: 'GET', url: '/v1/api-keys', headers: bearer(token) });
    expect(listed.body).not.toContain(created.key);
    expect(listed.json().data.map((k: { id: string }) => k.id)).toContain(created.id);
  });

  it('stores only the SHA-256 of the secret', async () => {
    const { key, id } = (await createKey()).json();
    const row = await t.deps.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('enforces scopes: a key without agents:read gets 403 insufficient_scope', async () => {
    const { key } = (await createKey({ name: 'usage only', scopes: ['usage:read'] })).json();
    const res = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'agents:read' });
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect((await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('answers 403 session_required when an API key manages the account', async () => {
    const { key } = (await createKey()).json();
    for (const [method, url] of [['POST', '/v1/api-keys'], ['GET', '/v1/api-keys'], ['GET', '/v1/users/me'], ['GET', '/v1/sessions'], ['POST', '/v1/users/me/password'], ['DELETE', '/v1/users/me']] as const) {
      const res = await t.request({ method, url, headers: bearer(key), payload: method === 'GET' ? undefined : {} });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().code).toBe('session_required');
    }
  });

  it('a revoked key fails at once; revoking again or another account\'s key is 404', async () => {
    const { key, id } = (await createKey()).json();
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: bearer(token) })).statusCode).toBe(204);
    const after = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('invalid_token');
    expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: bearer(token) })).statusCode).toBe(404);

    const other = (await t.signUp()).tokens.access_token;
    const mine = (await createKey()).json();
    expect((await t.request({ method: 'GET', url: `/v1/api-keys/${mine.id}`, headers: bearer(other) })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${mine.id}`, headers: bearer(other) })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(mine.key) })).statusCode).toBe(200);
  });

  it('an expired key gets 401 token_expired', async () => {
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const { key } = (await createKey({ name: 'short', expires_at: expiresAt })).json();
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
    t.clock.advance(61_000);
    const res = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('token_expired');
  });

  it('rejects malformed keys and bad checksums before any lookup, with 401', async () => {
    const { key } = (await createKey()).json();
    const flipped = key.slice(0, 10) + (key[10] === 'A' ? 'B' : 'A') + key.slice(11);
    for (const bad of [flipped, key.slice(0, -1), 'gth_' + 'a'.repeat(40), 'gth_', `${key}x`]) {
      const res = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(bad) });
      expect(res.statusCode, bad).toBe(401);
      expect(res.json().code).toBe('invalid_token');
    }
  });

  it('validates creation: name, scopes, expiry', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: 'x', scopes: ['agents:admin'] }, '/scopes/0'],
      [{ name: 'x', scopes: [] }, '/scopes'],
      [{ name: 'x', scopes: ['usage:read', 'usage:read'] }, '/scopes'],
      [{ name: 'x', expires_at: 'tomorrow' }, '/expires_at'],
      [{ name: 'x', expires_at: '2001-01-01T00:00:00.000Z' }, '/expires_at'],
      [{ name: 'x', secret: 'mine' }, '/secret'],
    ];
    for (const [body, field] of cases) {
      const res = await createKey(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('records last_used_at in batches, not per request', async () => {
    const { key, id } = (await createKey()).json();
    await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) });
    const before = await t.request({ method: 'GET', url: `/v1/api-keys/${id}`, headers: bearer(token) });
    expect(before.json().last_used_at).toBeNull();
    await t.deps.apiKeyVerifier.flush();
    const after = await t.request({ method: 'GET', url: `/v1/api-keys/${id}`, headers: bearer(token) });
    expect(after.json().last_used_at).toBe(new Date(t.clock.now()).toISOString());
  });

  it('paginates the list newest first with a stable cursor', async () => {
    const fresh = (await t.signUp()).tokens.access_token;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createKey({ name: `k${i}` }, fresh)).json().id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/api-keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await t.request({ method: 'GET', url, headers: bearer(fresh) })).json();
      seen.push(...page.data.map((k: { id: string }) => k.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect((await t.request({ method: 'GET', url: '/v1/api-keys?limit=0', headers: bearer(fresh) })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/v1/api-keys?cursor=nope', headers: bearer(fresh) })).statusCode).toBe(400);
  });

  it('deleting the account kills its keys at once', async () => {
    const user = await t.signUp();
    const { key } = (await createKey({ name: 'doomed' }, user.tokens.access_token)).json();
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
    const del = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(user.tokens.access_token), payload: { password: user.password } });
    expect(del.statusCode).toBe(202);
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(401);
    // Revoked at once; the rows go with the purge after the grace period (account-deletion.test.ts).
    const rows = await t.deps.database.db.selectFrom('api_keys').selectAll().where('user_id', '=', user.id).execute();
    expect(rows.map((r) => r.revoked_at)).toEqual([expect.any(String)]);
  });
});
