import { performance } from 'node:perf_hooks';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';

const WRONG = 'Not-The-Password-99';
const MINUTE = 60_000;

function expectThrottled(res: LightMyRequestResponse, code: 'too_many_attempts' | 'rate_limited'): number {
  expect({ status: res.statusCode, body: res.body }).toMatchObject({ status: 429 });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status: 429, code, type: `http://gatehouse.test/docs/errors#${code}`, request_id: res.headers['x-request-id'] });
  const retryAfter = String(res.headers['retry-after']);
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  return Number(retryAfter);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

describe(`failed-login throttling (${dialect})`, () => {
  let t: TestApp;
  const login = (username: string, password: string, remoteAddress = '203.0.113.7') =>
    t.request({ method: 'POST', url: '/v1/auth/login', payload: { username, password }, remoteAddress });

  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
  });
  afterAll(() => t.close());

  it('answers 429 too_many_attempts after LOGIN_MAX_FAILURES wrong passwords, even for the right one, until the window passes', async () => {
    const { email } = await t.register();
    for (let i = 0; i < 3; i++) {
      const res = await login(email, WRONG);
      expect(res.statusCode, res.body).toBe(401);
      expect(res.json().code).toBe('invalid_credentials');
    }
    const blocked = await login(email, STRONG_PASSWORD);
    const retryAfter = expectThrottled(blocked, 'too_many_attempts');
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(blocked.body).not.toContain('access_token');
    // Still blocked a little later, from another address too: the email is what is throttled.
    t.clock.advance(MINUTE);
    expectThrottled(await login(email, STRONG_PASSWORD, '198.51.100.20'), 'too_many_attempts');

    t.clock.advance(15 * MINUTE);
    const ok = await login(email, STRONG_PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().access_token).toEqual(expect.any(String));
  });

  it('throttles every letter case of one email as the same account', async () => {
    const { email } = await t.register();
    expect((await login(email, WRONG)).statusCode).toBe(401);
    expect((await login(email.toUpperCase(), WRONG)).statusCode).toBe(401);
    expect((await login(`  ${email.replace(/^u/, 'U')}`, WRONG)).statusCode).toBe(401);
    expectThrottled(await login(email, STRONG_PASSWORD), 'too_many_attempts');
    t.clock.advance(15 * MINUTE);
  });

  it('throttles an unknown email exactly like a known one (no enumeration)', async () => {
    const { email: known } = await t.register();
    const unknown = uniqueEmail();
    const answers: Array<[number, number]> = [];
    for (let i = 0; i < 3; i++) {
      const a = await login(known, WRONG);
      const b = await login(unknown, WRONG);
      answers.push([a.statusCode, b.statusCode]);
      const strip = (r: LightMyRequestResponse) => ({ ...r.json(), request_id: undefined });
      expect(strip(b)).toEqual(strip(a));
    }
    expect(answers).toEqual([[401, 401], [401, 401], [401, 401]]);
    const a = await login(known, WRONG);
    const b = await login(unknown, WRONG);
    expect(expectThrottled(b, 'too_many_attempts')).toBe(expectThrottled(a, 'too_many_attempts'));
    const strip = (r: LightMyRequestResponse) => ({ ...r.json(), request_id: undefined });
    expect(strip(b)).toEqual(strip(a));
    t.clock.advance(15 * MINUTE);
  });

  it('leaves other emails unaffected', async () => {
    const victim = await t.register();
    const bystander = await t.register();
    for (let i = 0; i < 3; i++) expect((await login(victim.email, WRONG)).statusCode).toBe(401);
    expectThrottled(await login(victim.email, STRONG_PASSWORD), 'too_many_attempts');

    const ok = await login(bystander.email, STRONG_PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    // And the bystander's own failures start from zero.
    expect((await login(bystander.email, WRONG)).statusCode).toBe(401);
    expect((await login(bystander.email, STRONG_PASSWORD)).statusCode).toBe(200);
    t.clock.advance(15 * MINUTE);
  });

  it('gives back the attempt of a successful login; earlier failures drain with time', async () => {
    const { email } = await t.register();
    for (let i = 0; i < 2; i++) expect((await login(email, WRONG)).statusCode).toBe(401);
    // Each success takes an attempt and gives it back: any number of them leaves the count at two.
    for (let i = 0; i < 5; i++) expect((await login(email, STRONG_PASSWORD)).statusCode).toBe(200);
    expect((await login(email, WRONG)).statusCode).toBe(401);
    expectThrottled(await login(email, WRONG), 'too_many_attempts');
    // One slot frees every 15 min / 3 = 5 min.
    t.clock.advance(5 * MINUTE);
    expect((await login(email, STRONG_PASSWORD)).statusCode).toBe(200);
    t.clock.advance(15 * MINUTE);
  });

  it('throttles one address spraying many emails (per-IP failures)', async () => {
    // Per-IP budget is ten times the per-email one: 30 failures here, each on a fresh email.
    const ip = '192.0.2.99';
    const { email } = await t.register();
    for (let i = 0; i < 30; i++) {
      const res = await login(uniqueEmail(), WRONG, ip);
      expect(res.statusCode, `attempt ${i + 1}: ${res.body}`).toBe(401);
    }
    expectThrottled(await login(email, STRONG_PASSWORD, ip), 'too_many_attempts');
    // The same account from another address is fine.
    expect((await login(email, STRONG_PASSWORD, '192.0.2.100')).statusCode).toBe(200);
    t.clock.advance(15 * MINUTE);
    expect((await login(email, STRONG_PASSWORD, ip)).statusCode).toBe(200);
  });
});

describe(`failed-login throttling under concurrency (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(); // LOGIN_MAX_FAILURES defaults to 10
  });
  afterAll(() => t.close());

  /** Counts the password hashes the server really checks (the real check still runs). */
  function countHashChecks(): () => number {
    const hasher = t.deps.hasher;
    const [verify, verifyDummy] = [hasher.verify, hasher.verifyDummy];
    let checks = 0;
    hasher.verify = (...args) => (checks++, verify.apply(hasher, args));
    hasher.verifyDummy = (...args) => (checks++, verifyDummy.apply(hasher, args));
    return () => {
      Object.assign(hasher, { verify, verifyDummy });
      return checks;
    };
  }

  it('checks at most LOGIN_MAX_FAILURES of 20 concurrent wrong passwords, and then refuses the right one', async () => {
    const { email } = await t.register();
    const checked = countHashChecks();
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: '203.0.113.60', payload: { username: email, password: `${WRONG}-${i}` } })));
    expect(checked()).toBe(10);
    const statuses = burst.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const r of burst.filter((r) => r.statusCode === 429)) expectThrottled(r, 'too_many_attempts');

    const right = await t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: '198.51.100.61', payload: { username: email, password: STRONG_PASSWORD } });
    expectThrottled(right, 'too_many_attempts');
    expect(right.body).not.toContain('access_token');
    t.clock.advance(15 * MINUTE);
  });

  it('checks at most ten times LOGIN_MAX_FAILURES of concurrent guesses from one address across many emails', async () => {
    const small = await createTestApp({ env: { LOGIN_MAX_FAILURES: '3' } }); // 30 per address
    try {
      let checks = 0;
      const verifyDummy = small.deps.hasher.verifyDummy;
      small.deps.hasher.verifyDummy = (password) => (checks++, verifyDummy.call(small.deps.hasher, password));
      const burst = await Promise.all(Array.from({ length: 50 }, () =>
        small.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: '203.0.113.62', payload: { username: uniqueEmail(), password: WRONG } })));
      expect(checks).toBe(30);
      expect(burst.filter((r) => r.statusCode === 401)).toHaveLength(30);
      expect(burst.filter((r) => r.statusCode === 429)).toHaveLength(20);
    } finally {
      await small.close();
    }
  });
});

describe(`public per-IP rate limit (${dialect})`, () => {
  const registerFrom = (t: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: '/v1/auth/register', remoteAddress, headers, payload: { email: uniqueEmail(), password: STRONG_PASSWORD, name: 'Rate' } });

  it('answers 429 rate_limited with Retry-After on the 6th register from one IP, not from another', async () => {
    const t = await createTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await registerFrom(t, '10.1.1.1');
        expect(res.statusCode, res.body).toBe(201);
      }
      const sixth = await registerFrom(t, '10.1.1.1');
      const retryAfter = expectThrottled(sixth, 'rate_limited');
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(sixth.json().window).toBe('minute');

      // Refused requests count even when invalid: limit runs before validation, nothing is created.
      expectThrottled(await t.request({ method: 'POST', url: '/v1/auth/register', remoteAddress: '10.1.1.1', payload: {} }), 'rate_limited');

      expect((await registerFrom(t, '10.1.1.2')).statusCode).toBe(201);

      t.clock.advance(MINUTE);
      expect((await registerFrom(t, '10.1.1.1')).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY=false ignores X-Forwarded-For when choosing the bucket', async () => {
    const t = await createTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: 'false' } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await registerFrom(t, '10.2.2.2', { 'x-forwarded-for': `198.51.100.${i + 1}` });
        expect(res.statusCode, res.body).toBe(201);
      }
      expectThrottled(await registerFrom(t, '10.2.2.2', { 'x-forwarded-for': '198.51.100.200' }), 'rate_limited');
      expectThrottled(await registerFrom(t, '10.2.2.2'), 'rate_limited');
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY=true buckets by the X-Forwarded-For client address', async () => {
    const t = await createTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: 'true' } });
    try {
      // Many clients behind one proxy: each has its own budget.
      for (let i = 0; i < 7; i++) {
        const res = await registerFrom(t, '10.3.3.3', { 'x-forwarded-for': `198.51.100.${i + 1}` });
        expect(res.statusCode, res.body).toBe(201);
      }
      // One client through the proxy: limited on its own address.
      for (let i = 0; i < 5; i++) expect((await registerFrom(t, '10.3.3.3', { 'x-forwarded-for': '203.0.113.50' })).statusCode).toBe(201);
      expectThrottled(await registerFrom(t, '10.3.3.3', { 'x-forwarded-for': '203.0.113.50' }), 'rate_limited');
      expect((await registerFrom(t, '10.3.3.3', { 'x-forwarded-for': '203.0.113.51' })).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('limits login per IP too, in its own bucket', async () => {
    const t = await createTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const { email } = await t.register();
      const loginFrom = (ip: string) => t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: ip, payload: { username: email, password: STRONG_PASSWORD } });
      for (let i = 0; i < 5; i++) expect((await loginFrom('10.4.4.4')).statusCode).toBe(200);
      expectThrottled(await loginFrom('10.4.4.4'), 'rate_limited');
      // Register from that address has its own budget.
      expect((await registerFrom(t, '10.4.4.4')).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe(`login timing (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '1000000' } });
  });
  afterAll(() => t.close());

  it('takes as long for an unknown email as for a wrong password', async () => {
    const { email } = await t.register();
    const timed = async (username: string) => {
      const start = performance.now();
      const res = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username, password: WRONG } });
      const ms = performance.now() - start;
      expect(res.statusCode).toBe(401);
      return ms;
    };
    // Warm up both paths (JIT, statement caches, connection pool).
    for (let i = 0; i < 3; i++) {
      await timed(email);
      await timed(uniqueEmail());
    }
    // Interleaved, alternating which goes first, so drift in machine load hits both series alike.
    const round = async () => {
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 15; i++) {
        if (i % 2) {
          known.push(await timed(email));
          unknown.push(await timed(uniqueEmail()));
        } else {
          unknown.push(await timed(uniqueEmail()));
          known.push(await timed(email));
        }
      }
      const k = median(known);
      const u = median(unknown);
      return { k, u, ratio: Math.max(k, u) / Math.min(k, u) };
    };
    // A real leak (no dummy hash) is a ratio of 10x or more, every time; a busy machine can push one
    // honest round past 1.5, so up to three rounds are measured and the best one counts.
    const rounds: Array<{ k: number; u: number; ratio: number }> = [];
    for (let i = 0; i < 3; i++) {
      rounds.push(await round());
      if (rounds.at(-1)!.ratio < 1.5) break;
    }
    const ratio = Math.min(...rounds.map((r) => r.ratio));
    const summary = rounds.map((r) => `known ${r.k.toFixed(2)} ms / unknown ${r.u.toFixed(2)} ms`).join('; ');
    expect(ratio, `medians: ${summary}`).toBeLessThan(1.5);
  });
});
