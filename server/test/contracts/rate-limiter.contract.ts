import { afterEach, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/kernel/limits/rate-limiter.js';

/**
 * The behaviour every RateLimiter implementation must show, run against each one
 * (memory here, Redis when REDIS_URL is set). Uses real time: limits are chosen so the
 * assertions hold whatever the scheduling (one minute slot is 600 ms at 100/min).
 */
export function rateLimiterContract(create: () => Promise<RateLimiter>): void {
  const made: RateLimiter[] = [];
  const make = async () => {
    const limiter = await create();
    made.push(limiter);
    return limiter;
  };
  const account = () => `acct_${Math.random().toString(36).slice(2)}`;
  afterEach(async () => {
    await Promise.all(made.splice(0).map((l) => l.close()));
  });

  it('admits exactly the per-minute limit from a concurrent burst', async () => {
    const limiter = await make();
    const id = account();
    const decisions = await Promise.all(Array.from({ length: 160 }, () => limiter.consume(id, { per_minute: 100, per_day: 10_000 })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused.violated).toBe('minute');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.minute).toMatchObject({ limit: 100, remaining: 0 });
  });

  it('reports remaining and used, and replenishes at the sustained rate', async () => {
    const limiter = await make();
    const id = account();
    const first = await limiter.consume(id, { per_minute: 100, per_day: 10_000 });
    expect(first.minute).toMatchObject({ limit: 100, used: 1, remaining: 99 });
    expect(first.day).toMatchObject({ limit: 10_000, used: 1, remaining: 9_999 });
    expect(first.day.resetSeconds).toBeGreaterThan(0);
    expect(first.day.resetSeconds).toBeLessThanOrEqual(86_400);
    for (let i = 0; i < 99; i++) await limiter.consume(id, { per_minute: 100, per_day: 10_000 });
    expect((await limiter.consume(id, { per_minute: 100, per_day: 10_000 })).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 700)); // one slot (600 ms) frees up
    expect((await limiter.consume(id, { per_minute: 100, per_day: 10_000 })).allowed).toBe(true);
    expect((await limiter.consume(id, { per_minute: 100, per_day: 10_000 })).allowed).toBe(false);
  });

  it('enforces the day window and names it', async () => {
    const limiter = await make();
    const id = account();
    const results = [];
    for (let i = 0; i < 51; i++) results.push(await limiter.consume(id, { per_minute: 1_000, per_day: 50 }));
    expect(results.filter((d) => d.allowed)).toHaveLength(50);
    expect(results[50]).toMatchObject({ allowed: false, violated: 'day', day: { used: 50, remaining: 0 } });
    expect(results[50]!.retryAfterSeconds).toBe(results[50]!.day.resetSeconds);
  });

  it('does not count a refused request in either window', async () => {
    const limiter = await make();
    const id = account();
    for (let i = 0; i < 3; i++) await limiter.consume(id, { per_minute: 1_000, per_day: 3 });
    for (let i = 0; i < 5; i++) await limiter.consume(id, { per_minute: 1_000, per_day: 3 });
    // Raising the day budget shows nothing extra was counted while refused.
    const next = await limiter.consume(id, { per_minute: 1_000, per_day: 4 });
    expect(next).toMatchObject({ allowed: true, day: { used: 4 } });
  });

  it('keeps accounts apart and applies a raised limit at once', async () => {
    const limiter = await make();
    const [a, b] = [account(), account()];
    for (let i = 0; i < 5; i++) await limiter.consume(a, { per_minute: 5, per_day: 100 });
    expect((await limiter.consume(a, { per_minute: 5, per_day: 100 })).allowed).toBe(false);
    expect((await limiter.consume(b, { per_minute: 5, per_day: 100 })).allowed).toBe(true);
    expect((await limiter.consume(a, { per_minute: 1_000, per_day: 100 })).allowed).toBe(true);
  });

  it('counts interleaved accounts of one burst exactly, each in its own windows, the refused in neither', async () => {
    const limiter = await make();
    const [a, b, c] = [account(), account(), account()];
    const limits = { a: { per_minute: 30, per_day: 10_000 }, b: { per_minute: 1_000, per_day: 20 }, c: { per_minute: 10, per_day: 10_000 } };
    // One burst (one batch for a batching limiter) with the three accounts' requests interleaved.
    const calls: Promise<{ who: 'a' | 'b' | 'c'; allowed: boolean; dayUsed: number }>[] = [];
    for (let i = 0; i < 50; i++) {
      for (const [who, id] of [['a', a], ['b', b], ['c', c]] as const) {
        calls.push(limiter.consume(id, limits[who]).then((d) => ({ who, allowed: d.allowed, dayUsed: d.day.used })));
      }
    }
    const results = await Promise.all(calls);
    const admitted = (who: string) => results.filter((r) => r.who === who && r.allowed);
    expect(admitted('a')).toHaveLength(30);
    expect(admitted('b')).toHaveLength(20);
    expect(admitted('c')).toHaveLength(10);
    // Within one account, in the order asked: the admitted ones came first and counted 1, 2, 3, …
    expect(admitted('b').map((r) => r.dayUsed)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.filter((r) => r.who === 'b').slice(20).every((r) => !r.allowed)).toBe(true);
    // What the burst stored is what the next request sees: nothing refused was counted.
    expect((await limiter.consume(a, { per_minute: 1_000, per_day: 10_000 })).day.used).toBe(31);
    expect((await limiter.consume(b, { per_minute: 1_000, per_day: 21 })).day.used).toBe(21);
  });

  it('peeks at both windows without counting', async () => {
    const limiter = await make();
    const id = account();
    const limits = { per_minute: 100, per_day: 10_000 };
    expect(await limiter.peek(id, limits)).toMatchObject({ minute: { used: 0, remaining: 100, nextSeconds: 0 }, day: { used: 0, remaining: 10_000, nextSeconds: 0 } });
    for (let i = 0; i < 3; i++) await limiter.consume(id, limits);
    const first = await limiter.peek(id, limits);
    expect(first).toMatchObject({ minute: { used: 3, remaining: 97 }, day: { used: 3, remaining: 9_997 } });
    expect(await limiter.peek(id, limits)).toMatchObject({ minute: { used: 3 }, day: { used: 3 } });
    expect((await limiter.consume(id, limits)).day.used).toBe(4);
  });

  it('says in Retry-After and in the window when the next request is admitted, and both agree', async () => {
    const limiter = await make();
    const id = account();
    const limits = { per_minute: 60, per_day: 10_000 }; // one slot a second
    for (let i = 0; i < 60; i++) await limiter.consume(id, limits);
    const refused = await limiter.consume(id, limits);
    expect(refused).toMatchObject({ allowed: false, violated: 'minute', retryAfterSeconds: 1, minute: { remaining: 0, nextSeconds: 1 } });
    await new Promise((r) => setTimeout(r, refused.retryAfterSeconds * 1000));
    expect((await limiter.consume(id, limits)).allowed).toBe(true);
  });

  it('caps the minute bucket when the limit is lowered: the wait stays within one slot of the new limit', async () => {
    const limiter = await make();
    const id = account();
    for (let i = 0; i < 60; i++) await limiter.consume(id, { per_minute: 100, per_day: 10_000 });
    const lowered = { per_minute: 5, per_day: 10_000 };
    const refused = await limiter.consume(id, lowered);
    expect(refused).toMatchObject({ allowed: false, violated: 'minute', minute: { limit: 5, used: 5, remaining: 0 } });
    // A full bucket of 5 frees one slot every 12 s; the old level of 60 would have meant 672 s.
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(12);
    expect(refused.minute.resetSeconds).toBeLessThanOrEqual(60);
  });

  it("admits a key's request only when it fits the key's own budget and the account's, and counts it in both or neither", async () => {
    const limiter = await make();
    const id = account();
    const accountLimits = { per_minute: 100, per_day: 10_000 };
    const key = { id: `key_${id}`, limits: { per_minute: 5, per_day: 1e15 } };
    const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.consume(id, accountLimits, { key })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused).toMatchObject({ violated: 'minute', limitedBy: 'api_key', minute: { limit: 5, remaining: 0 } });
    // The refused ones spent nothing of the account's, which still admits its other credentials.
    expect(await limiter.peek(id, accountLimits)).toMatchObject({ minute: { used: 5 }, day: { used: 5 } });
    expect((await limiter.consume(id, accountLimits)).allowed).toBe(true);
    // The tighter window is the one reported.
    expect(await limiter.peek(id, accountLimits, key)).toMatchObject({ minute: { limit: 5, remaining: 0 }, day: { limit: 10_000, used: 6 } });
  });

  it('refuses by the account when the account is spent, whatever the key has left', async () => {
    const limiter = await make();
    const id = account();
    const accountLimits = { per_minute: 3, per_day: 10_000 };
    const key = { id: `key_${id}`, limits: { per_minute: 1e15, per_day: 100 } };
    for (let i = 0; i < 3; i++) expect((await limiter.consume(id, accountLimits)).allowed).toBe(true);
    expect(await limiter.consume(id, accountLimits, { key })).toMatchObject({ allowed: false, limitedBy: 'account', violated: 'minute' });
    expect((await limiter.peek(id, accountLimits, key)).day).toMatchObject({ limit: 100, used: 0 });
  });

  it('counts a request of cost n as n requests, and refuses one that does not fit whole', async () => {
    const limiter = await make();
    const id = account();
    const limits = { per_minute: 10, per_day: 10_000 };
    expect(await limiter.consume(id, limits, { cost: 7 })).toMatchObject({ allowed: true, minute: { used: 7, remaining: 3 } });
    expect(await limiter.consume(id, limits, { cost: 4 })).toMatchObject({ allowed: false, violated: 'minute', minute: { used: 7 } });
    expect(await limiter.consume(id, limits, { cost: 3 })).toMatchObject({ allowed: true, minute: { remaining: 0 }, day: { used: 10 } });
  });

  it('names the budget that refused, with its own window, when both are spent', async () => {
    const limiter = await make();
    const id = account();
    const accountLimits = { per_minute: 100, per_day: 10_000 };
    const key = { id: `key_${id}`, limits: { per_minute: 5, per_day: 1e15 } };
    for (let i = 0; i < 5; i++) expect((await limiter.consume(id, accountLimits, { key })).allowed).toBe(true);
    for (let i = 0; i < 95; i++) expect((await limiter.consume(id, accountLimits)).allowed).toBe(true);
    // Both minute windows are spent; the key's frees a slot in 12 s, the account's in 0.6 s.
    const refused = await limiter.consume(id, accountLimits, { key });
    expect(refused).toMatchObject({ allowed: false, violated: 'minute', limitedBy: 'api_key', minute: { limit: 5, remaining: 0 } });
    expect(refused.retryAfterSeconds).toBe(refused.minute.nextSeconds);
    expect(refused.retryAfterSeconds).toBeGreaterThan(5);
  });
}
