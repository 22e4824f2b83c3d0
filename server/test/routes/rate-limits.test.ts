import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

describe(`per-account rate limits (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const get = (token: string, url = '/v1/agents') => t.request({ method: 'GET', url, headers: bearer(token) });

  async function makeAdmin(): Promise<string> {
    const admin = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    return admin.tokens.access_token;
  }

  it('a free account gets 100 per minute: the 101st is 429 with Retry-After, and passes again after it', async () => {
    const { tokens } = await t.signUp();
    const first = await get(tokens.access_token);
    expect(first.headers['ratelimit-policy']).toBe('"minute";q=100;w=60, "day";q=10000;w=86400');
    expect(first.headers.ratelimit).toBe('"minute";r=99;t=1');
    expect(first.headers['x-ratelimit-limit']).toBe('100');
    expect(first.headers['x-ratelimit-remaining']).toBe('99');
    expect(Number(first.headers['x-ratelimit-reset'])).toBe(Math.ceil(t.clock.now() / 1000) + 1);
    for (let i = 2; i <= 100; i++) {
      const res = await get(tokens.access_token);
      expect(res.statusCode, `request ${i}`).toBe(200);
    }
    const refused = await get(tokens.access_token);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', window: 'minute', limit: 100 });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-policy']).toBeDefined();
    t.clock.advance(Number(refused.headers['retry-after']) * 1000);
    expect((await get(tokens.access_token)).statusCode).toBe(200);
    expect((await get(tokens.access_token)).statusCode).toBe(429); // sustained rate stays 100/min
  });

  it('every key and token of an account spends the same budget', async () => {
    const { tokens } = await t.signUp();
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(tokens.access_token), payload: { name: 'k' } })).json().key as string;
    for (let i = 0; i < 49; i++) await get(key);
    const viaToken = await get(tokens.access_token);
    expect(viaToken.headers['x-ratelimit-remaining']).toBe('50'); // 49 by the key + this one (creating the key spent none)
  });

  it('counts requests that fail the scope check (a valid credential was sent)', async () => {
    const { tokens } = await t.signUp();
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(tokens.access_token), payload: { name: 'k', scopes: ['usage:read'] } })).json().key as string;
    const denied = await get(key);
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('GET /v1/usage reports the budget and spends none of it', async () => {
    const { tokens } = await t.signUp();
    await get(tokens.access_token);
    await get(tokens.access_token);
    for (let i = 0; i < 2; i++) {
      const res = await get(tokens.access_token, '/v1/usage');
      expect(res.statusCode).toBe(200);
      const usage = res.json();
      expect(usage).toMatchObject({ tier: 'free', limits: { per_minute: 100, per_day: 10000 }, minute: { used: 2, remaining: 98 }, day: { used: 2, remaining: 9998 } });
      expect(usage.day.reset_seconds).toBeGreaterThan(0);
      expect(usage.day.reset_seconds).toBeLessThanOrEqual(86400);
      // No budget was spent, so no budget headers describe this answer.
      expect(res.headers['ratelimit']).toBeUndefined();
    }
  });

  it('an account raised to pro by an admin gets 1,000 per minute at once', async () => {
    const adminToken = await makeAdmin();
    const user = await t.signUp();
    const patch = await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { tier: 'pro' } });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()).toMatchObject({ tier: 'pro', limits: { per_minute: 1000, per_day: 100000 }, custom_limits: null });
    const statuses: number[] = [];
    for (let i = 0; i < 1001; i++) statuses.push((await get(user.tokens.access_token)).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses[1000]).toBe(429);
  });

  it('an enterprise account with a custom 50 per day gets its 51st request refused, naming the day window', async () => {
    const adminToken = await makeAdmin();
    const user = await t.signUp();
    const patch = await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { tier: 'enterprise', limits: { per_minute: 5000, per_day: 50 } } });
    expect(patch.json()).toMatchObject({ tier: 'enterprise', limits: { per_minute: 5000, per_day: 50 } });
    const first = await get(user.tokens.access_token);
    expect(first.headers['ratelimit-policy']).toBe('"minute";q=5000;w=60, "day";q=50;w=86400');
    expect(first.headers.ratelimit).toMatch(/^"day";r=49;t=\d+$/);
    for (let i = 2; i <= 50; i++) expect((await get(user.tokens.access_token)).statusCode).toBe(200);
    const refused = await get(user.tokens.access_token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', window: 'day', limit: 50 });
    const midnight = Math.ceil((Math.floor(t.clock.now() / 86_400_000) + 1) * 86_400) - Math.floor(t.clock.now() / 1000);
    expect(Math.abs(Number(refused.headers['retry-after']) - midnight)).toBeLessThanOrEqual(1);
    // The next UTC day starts a fresh count (an API key, since the access token will have expired by then).
    const keyRow = await t.deps.apiKeys.create({ userId: user.id, serviceRole: 'user', orgId: await t.personalOrgId(user.id), orgRole: 'owner' }, { name: 'tomorrow' });
    t.clock.advance(Number(refused.headers['retry-after']) * 1000);
    const tomorrow = await get(keyRow.key);
    expect(tomorrow.statusCode).toBe(200);
    expect(tomorrow.json()).toEqual({ data: [], next_cursor: null });
  });

  it('public endpoints answer without account rate-limit headers', async () => {
    const res = await t.request({ method: 'GET', url: '/healthz' });
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });
});
