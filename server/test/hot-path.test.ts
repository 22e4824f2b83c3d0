import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from './harness.js';

/**
 * The hot path (src/http/hot-path.ts) answers GET /v1/users/me and GET /v1/usage in front of
 * Fastify when everything is in memory. These tests go over real HTTP (app.inject would bypass
 * it) and hold it to Fastify's own answers: the same request with a query string always goes
 * through Fastify, so each pair below is "hot path" against "Fastify" on the same server.
 */
describe(`hot path in front of Fastify (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => t.close());

  async function hotAnswers(): Promise<number> {
    const text = (await t.request({ method: 'GET', url: '/metrics' })).body;
    return Number(/^gatehouse_hot_path_answers_total (\d+)$/m.exec(text)?.[1]);
  }

  async function get(path: string, credential: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}${path}`, { headers: { ...bearer(credential), ...headers } });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }
  async function getWithAuthorization(path: string, authorization: string) {
    const res = await fetch(`${base}${path}`, { headers: { authorization } });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }

  /** A request that goes to Fastify (the query string), and whether the next one took the hot path. */
  async function pair(path: string, credential: string) {
    const viaFastify = await get(`${path}?via=fastify`, credential);
    const before = await hotAnswers();
    const viaHotPath = await get(path, credential);
    return { viaFastify, viaHotPath, tookHotPath: (await hotAnswers()) === before + 1 };
  }

  // Headers whose values move from one request to the next (ids, the clock, the budget).
  const MOVING = new Set(['x-request-id', 'date', 'ratelimit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
  function expectSameHeaders(hot: Record<string, string>, fastify: Record<string, string>) {
    expect(Object.keys(hot).sort()).toEqual(Object.keys(fastify).sort());
    for (const [name, value] of Object.entries(fastify)) if (!MOVING.has(name)) expect(hot[name], name).toBe(value);
    expect(hot['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    expect(Number(hot['x-ratelimit-remaining'])).toBe(Number(fastify['x-ratelimit-remaining']) - 1);
  }

  it('answers GET /v1/users/me byte for byte like Fastify, names with quotes, escapes and non-ASCII included', async () => {
    const { tokens } = await t.signUp({ name: 'Zoë "Q" \\ back\u2028slash 🦊 名前' });
    const { viaFastify, viaHotPath, tookHotPath } = await pair('/v1/users/me', tokens.access_token);
    expect(tookHotPath).toBe(true);
    expect(viaHotPath.status).toBe(200);
    expect(viaHotPath.body).toBe(viaFastify.body);
    expect(JSON.parse(viaHotPath.body).name).toBe('Zoë "Q" \\ back\u2028slash 🦊 名前');
    expectSameHeaders(viaHotPath.headers, viaFastify.headers);
  });

  it('answers GET /v1/usage by API key like Fastify, the budget one request further on', async () => {
    const { tokens } = await t.signUp();
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(tokens.access_token), payload: { name: 'k', scopes: ['usage:read'] } })).json().key as string;
    await get('/v1/usage', key); // the key's first use: verified in full, then cached
    const { viaFastify, viaHotPath, tookHotPath } = await pair('/v1/usage', key);
    expect(tookHotPath).toBe(true);
    expectSameHeaders(viaHotPath.headers, viaFastify.headers);
    const fastifyBody = JSON.parse(viaFastify.body);
    const hotBody = JSON.parse(viaHotPath.body);
    expect(Object.keys(hotBody)).toEqual(Object.keys(fastifyBody));
    expect(hotBody.minute.used).toBe(fastifyBody.minute.used + 1);
    expect(hotBody.day.used).toBe(fastifyBody.day.used + 1);
    expect({ ...hotBody, minute: { ...hotBody.minute, used: 0, remaining: 0, reset_seconds: 0 }, day: { ...hotBody.day, used: 0, remaining: 0 } })
      .toEqual({ ...fastifyBody, minute: { ...fastifyBody.minute, used: 0, remaining: 0, reset_seconds: 0 }, day: { ...fastifyBody.day, used: 0, remaining: 0 } });
  });

  it('passes to Fastify what it does not answer itself, and every request counts exactly once', async () => {
    const { tokens } = await t.signUp();
    const token = tokens.access_token;
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(token), payload: { name: 'k', scopes: ['agents:read'] } })).json().key as string;
    await get('/v1/agents', key); // cache the key
    const before = await hotAnswers();

    const apiKeyOnAccount = await get('/v1/users/me', key);
    expect(apiKeyOnAccount.status).toBe(403);
    expect(JSON.parse(apiKeyOnAccount.body).code).toBe('session_required');
    const withoutScope = await get('/v1/usage', key);
    expect(withoutScope.status).toBe(403);
    expect(JSON.parse(withoutScope.body).code).toBe('insufficient_scope');
    expect(withoutScope.headers['www-authenticate']).toContain('error="insufficient_scope"');
    const head = await fetch(`${base}/v1/users/me`, { method: 'HEAD', headers: bearer(token) });
    expect(head.status).toBe(200);
    expect((await get('/v1/users/me/', token)).status).toBe(404);
    // Another spelling of the scheme: only Fastify's lenient parser takes it.
    expect((await getWithAuthorization('/v1/users/me', `bearer ${token}`)).status).toBe(200);
    expect(await hotAnswers()).toBe(before);

    const usage = JSON.parse((await get('/v1/usage', token)).body);
    expect(await hotAnswers()).toBe(before + 1);
    // Counted: key creation, GET /v1/agents, the two 403s, HEAD, the lower-case scheme and this
    // one (not the 404: no route, no authentication).
    expect(usage.minute.used).toBe(7);
  });

  it('hands a request it counted but cannot admit to Fastify: a 429 counted once, with every header', async () => {
    const { id, tokens } = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ tier: 'enterprise', limit_per_minute: 1000, limit_per_day: 3 }).where('id', '=', id).execute();
    await t.deps.accounts.changed(id);
    const limiter = t.deps.limiter;
    const consumeNow = limiter.consumeNow ? vi.spyOn(limiter, 'consumeNow') : undefined;
    const consumeThen = vi.spyOn(limiter, 'consumeThen');
    const calls = () => (consumeNow?.mock.calls.length ?? 0) + consumeThen.mock.calls.length;
    try {
      for (let i = 0; i < 3; i++) expect((await get('/v1/users/me', tokens.access_token)).status).toBe(200);
      const hotBefore = await hotAnswers();
      const callsBefore = calls();
      const refused = await get('/v1/users/me', tokens.access_token);
      expect(calls() - callsBefore).toBe(1);
      expect(await hotAnswers()).toBe(hotBefore);
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'rate_limited', window: 'day', limit: 3 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['ratelimit-policy']).toBe('"minute";q=1000;w=60, "day";q=3;w=86400');
      expect(refused.headers['x-request-id']).toMatch(/^req_/);
    } finally {
      consumeNow?.mockRestore();
      consumeThen.mockRestore();
    }
  });

  it('steps aside for a revoked session and a disabled account (Fastify answers 401 and 403)', async () => {
    const revoked = await t.signUp();
    expect((await get('/v1/users/me', revoked.tokens.access_token)).status).toBe(200);
    expect((await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(revoked.tokens.access_token) })).statusCode).toBe(204);
    const afterLogout = await get('/v1/users/me', revoked.tokens.access_token);
    expect(afterLogout.status).toBe(401);
    expect(afterLogout.headers['www-authenticate']).toContain('error="invalid_token"');

    const disabled = await t.signUp();
    expect((await get('/v1/users/me', disabled.tokens.access_token)).status).toBe(200);
    await t.deps.database.db.updateTable('users').set({ disabled: 1 }).where('id', '=', disabled.id).execute();
    await t.deps.accounts.changed(disabled.id);
    const refused = await get('/v1/users/me', disabled.tokens.access_token);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).code).toBe('account_disabled');
  });

  it('keeps a safe incoming X-Request-Id, writes the same log line and records into the same histogram series as Fastify', async () => {
    const { tokens } = await t.signUp();
    await get('/v1/users/me', tokens.access_token);
    const logsBefore = t.logs.length;
    const hot = await get('/v1/users/me', tokens.access_token, { 'x-request-id': 'trace-42.a:b' });
    expect(hot.headers['x-request-id']).toBe('trace-42.a:b');
    const evil = await get('/v1/users/me', tokens.access_token, { 'x-request-id': 'x'.repeat(129) });
    expect(evil.headers['x-request-id']).toMatch(/^req_/);
    const viaFastify = await get('/v1/users/me?via=fastify', tokens.access_token);
    const lines = t.logs.slice(logsBefore).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    const hotLine = lines.find((l) => l.reqId === 'trace-42.a:b');
    const fastifyLine = lines.find((l) => l.reqId === viaFastify.headers['x-request-id']);
    expect(hotLine).toMatchObject({ level: 30, method: 'GET', url: '/v1/users/me', status: 200 });
    expect(fastifyLine).toMatchObject({ level: 30, method: 'GET', url: '/v1/users/me', status: 200 });
    expect(Object.keys(hotLine!)).toEqual(Object.keys(fastifyLine!));

    const metrics = (await t.request({ method: 'GET', url: '/metrics' })).body;
    const series = metrics.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('route="/v1/users/me"') && l.includes('method="GET"') && l.includes('status_code="200"'));
    expect(series).toHaveLength(1);
    expect(Number(series[0]!.split(' ').at(-1))).toBeGreaterThanOrEqual(4);
  });
});

describe(`hot path with CORS configured (${dialect})`, () => {
  it('is off: every answer carries @fastify/cors headers', async () => {
    const t = await createTestApp({ env: { CORS_ORIGINS: 'https://app.example' } });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address() as { port: number };
      const { tokens } = await t.signUp();
      const get = () => fetch(`http://127.0.0.1:${address.port}/v1/users/me`, { headers: { ...bearer(tokens.access_token), origin: 'https://app.example' } });
      await get();
      const res = await get();
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect((await t.request({ method: 'GET', url: '/metrics' })).body).not.toContain('gatehouse_hot_path_answers_total');
    } finally {
      await t.close();
    }
  });
});
