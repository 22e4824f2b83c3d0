import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * An owner is never locked out of their own account by its request budget: a runaway key that
 * spent the day's budget can still be stopped. Platform routes keep spending and refusing.
 */
describe(`managing the account with the budget used up (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function enterprise(userId: string, perMinute: number, perDay: number): Promise<void> {
    await t.setPlan(userId, { tier: 'enterprise', limit_per_minute: perMinute, limit_per_day: perDay });
  }

  it('lets the owner read, revoke the runaway key, change the password and log out, while platform routes answer 429', async () => {
    const user = await t.signUp();
    const owner = bearer(user.tokens.access_token);
    const created = await t.request({ method: 'POST', url: '/v1/api-keys', headers: owner, payload: { name: 'runaway' } });
    expect(created.statusCode).toBe(201);
    const { id: keyId, key } = created.json();
    await enterprise(user.id, 1000, 20);
    for (let i = 0; i < 20; i++) expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
    const spent = await t.request({ method: 'GET', url: '/v1/agents', headers: owner });
    expect(spent.statusCode).toBe(429);
    expect(spent.json()).toMatchObject({ code: 'rate_limited', window: 'day' });

    for (const url of ['/v1/users/me', '/v1/usage', '/v1/api-keys', '/v1/sessions', '/v1/users/me/security-events', `/v1/api-keys/${keyId}`]) {
      const res = await t.request({ method: 'GET', url, headers: owner });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
    const usage = (await t.request({ method: 'GET', url: '/v1/usage', headers: owner })).json();
    expect(usage.day).toMatchObject({ used: 20, remaining: 0 });

    expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${keyId}`, headers: owner })).statusCode).toBe(204);
    const revokedKey = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) });
    expect(revokedKey.statusCode).toBe(401);

    const other = await t.login(user.email, user.password);
    expect((await t.request({ method: 'DELETE', url: `/v1/sessions/${sessionOf(other.access_token)}`, headers: owner })).statusCode).toBe(204);
    const changed = await t.request({ method: 'POST', url: '/v1/users/me/password', headers: owner, payload: { current_password: user.password, new_password: 'Another-Long-Secret-31' } });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await t.request({ method: 'PATCH', url: '/v1/users/me', headers: owner, payload: { name: 'Still Me' } })).statusCode).toBe(200);

    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: owner })).statusCode).toBe(429);
    expect((await t.request({ method: 'POST', url: '/v1/auth/logout', headers: owner })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: owner })).statusCode).toBe(401);
  });

  it('keeps an abuse limit of its own on the exempt routes, per account', async () => {
    const limited = await createTestApp({ env: { ACCOUNT_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const user = await limited.signUp();
      const me = () => limited.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) });
      for (let i = 0; i < 5; i++) expect((await me()).statusCode).toBe(200);
      const refused = await me();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'rate_limited', retry_after: 12 });
      expect(refused.headers['retry-after']).toBe('12');
      // The budget is a separate thing: platform routes still answer.
      expect((await limited.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) })).statusCode).toBe(200);
      limited.clock.advance(12_000);
      expect((await me()).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("counts an account's keys apart from its sessions: a key hammering the account routes cannot stop its owner revoking it", async () => {
    const limited = await createTestApp({ env: { ACCOUNT_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const user = await limited.signUp();
      const owner = bearer(user.tokens.access_token);
      const { id, key } = (await limited.request({ method: 'POST', url: '/v1/api-keys', headers: owner, payload: { name: 'leaked' } })).json();
      const byKey = await Promise.all(Array.from({ length: 8 }, () => limited.request({ method: 'GET', url: '/v1/usage', headers: bearer(key) })));
      expect(byKey.filter((r) => r.statusCode === 429)).toHaveLength(3);
      expect((await limited.request({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: owner })).statusCode).toBe(204);
      expect((await limited.request({ method: 'GET', url: '/v1/usage', headers: bearer(key) })).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});

describe(`honest waits on 429 (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lowering the minute limit after 60 requests gives a 429 whose Retry-After is at most 60', async () => {
    const user = await t.signUp();
    await t.setPlan(user.id, { tier: 'pro' });
    for (let i = 0; i < 60; i++) expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) })).statusCode).toBe(200);
    await t.setPlan(user.id, { tier: 'enterprise', limit_per_minute: 5, limit_per_day: 100_000 });
    const refused = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().window).toBe('minute');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it("a 429's Retry-After, RateLimit t and X-RateLimit-Reset all name the moment the next request is admitted", async () => {
    const user = await t.signUp();
    await t.setPlan(user.id, { tier: 'enterprise', limit_per_minute: 3, limit_per_day: 100_000 });
    const get = () => t.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) });
    for (let i = 0; i < 3; i++) expect((await get()).statusCode).toBe(200);
    const refused = await get();
    expect(refused.statusCode).toBe(429);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBe(20); // a bucket of 3 per minute frees one slot every 20 s
    expect(refused.headers.ratelimit).toBe(`"minute";r=0;t=${wait}`);
    expect(Number(refused.headers['x-ratelimit-reset'])).toBe(Math.ceil(t.clock.now() / 1000) + wait);
    expect(refused.json()).toMatchObject({ retry_after: wait });
    t.clock.advance(wait * 1000 - 1000);
    expect((await get()).statusCode).toBe(429);
    t.clock.advance(1000);
    const admitted = await get();
    expect(admitted.statusCode).toBe(200);
    expect(admitted.headers.ratelimit).toBe('"minute";r=0;t=20');
  });
});

/** The session id (`sid`) inside an access token. */
function sessionOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid;
}
