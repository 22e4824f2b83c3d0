import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptBucket, Limiter } from '../../src/kernel/limits/limiter.js';

/**
 * What every limiter store must do, run against each one (limiter.test.ts: memory, the fallback
 * over a store that fails, and with REDIS_URL Redis and the fallback over Redis). `create` gets a
 * clock the test moves by hand: every store takes the time from its caller, so no test here waits.
 */
export function limiterContract(create: (now: () => number) => Promise<Limiter>): void {
  let now = 1_700_000_000_000; // 22:13 UTC: no test here moves the clock past midnight
  const made: Limiter[] = [];
  const make = async () => {
    const limiter = await create(() => now);
    made.push(limiter);
    return limiter;
  };
  afterEach(async () => {
    await Promise.all(made.splice(0).map((l) => l.close()));
  });
  const unique = (name: string) => `${name}_${Math.random().toString(36).slice(2)}`;

  describe('request budget', () => {
    it('admits exactly the per-minute limit from a concurrent burst', async () => {
      const limiter = await make();
      const id = unique('acct');
      const decisions = await Promise.all(Array.from({ length: 160 }, () => limiter.consume(id, { per_minute: 100, per_day: 10_000 })));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
      const refused = decisions.find((d) => !d.allowed)!;
      expect(refused.violated).toBe('minute');
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.minute).toMatchObject({ limit: 100, remaining: 0 });
    });

    it('reports remaining and used, and replenishes at the sustained rate', async () => {
      const limiter = await make();
      const id = unique('acct');
      const limits = { per_minute: 100, per_day: 10_000 };
      const first = await limiter.consume(id, limits);
      expect(first.minute).toMatchObject({ limit: 100, used: 1, remaining: 99 });
      expect(first.day).toMatchObject({ limit: 10_000, used: 1, remaining: 9_999 });
      expect(first.day.resetSeconds).toBeGreaterThan(0);
      expect(first.day.resetSeconds).toBeLessThanOrEqual(86_400);
      for (let i = 0; i < 99; i++) await limiter.consume(id, limits);
      expect((await limiter.consume(id, limits)).allowed).toBe(false);
      now += 600; // one slot at 100/min
      expect((await limiter.consume(id, limits)).allowed).toBe(true);
      expect((await limiter.consume(id, limits)).allowed).toBe(false);
    });

    it('enforces the day window and names it', async () => {
      const limiter = await make();
      const id = unique('acct');
      const results = [];
      for (let i = 0; i < 51; i++) results.push(await limiter.consume(id, { per_minute: 1_000, per_day: 50 }));
      expect(results.filter((d) => d.allowed)).toHaveLength(50);
      expect(results[50]).toMatchObject({ allowed: false, violated: 'day', day: { used: 50, remaining: 0 } });
      expect(results[50]!.retryAfterSeconds).toBe(results[50]!.day.resetSeconds);
    });

    it('does not count a refused request in either window', async () => {
      const limiter = await make();
      const id = unique('acct');
      for (let i = 0; i < 3; i++) await limiter.consume(id, { per_minute: 1_000, per_day: 3 });
      for (let i = 0; i < 5; i++) await limiter.consume(id, { per_minute: 1_000, per_day: 3 });
      // Raising the day budget shows nothing extra was counted while refused.
      const next = await limiter.consume(id, { per_minute: 1_000, per_day: 4 });
      expect(next).toMatchObject({ allowed: true, day: { used: 4 } });
    });

    it('keeps accounts apart and applies a raised limit at once', async () => {
      const limiter = await make();
      const [a, b] = [unique('acct'), unique('acct')];
      for (let i = 0; i < 5; i++) await limiter.consume(a, { per_minute: 5, per_day: 100 });
      expect((await limiter.consume(a, { per_minute: 5, per_day: 100 })).allowed).toBe(false);
      expect((await limiter.consume(b, { per_minute: 5, per_day: 100 })).allowed).toBe(true);
      expect((await limiter.consume(a, { per_minute: 1_000, per_day: 100 })).allowed).toBe(true);
    });

    it('counts interleaved accounts of one burst exactly, each in its own windows, the refused in neither', async () => {
      const limiter = await make();
      const [a, b, c] = [unique('acct'), unique('acct'), unique('acct')];
      const limits = { a: { per_minute: 30, per_day: 10_000 }, b: { per_minute: 1_000, per_day: 20 }, c: { per_minute: 10, per_day: 10_000 } };
      // One burst (one batch for a batching store) with the three accounts' requests interleaved.
      const calls: Promise<{ who: 'a' | 'b' | 'c'; allowed: boolean; dayUsed: number }>[] = [];
      for (let i = 0; i < 50; i++) {
        for (const [who, id] of [['a', a], ['b', b], ['c', c]] as const) {
          calls.push(Promise.resolve(limiter.consume(id, limits[who])).then((d) => ({ who, allowed: d.allowed, dayUsed: d.day.used })));
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
      const id = unique('acct');
      const limits = { per_minute: 100, per_day: 10_000 };
      expect(await limiter.peek(id, limits)).toMatchObject({ minute: { used: 0, remaining: 100, nextSeconds: 0 }, day: { used: 0, remaining: 10_000, nextSeconds: 0 } });
      for (let i = 0; i < 3; i++) await limiter.consume(id, limits);
      expect(await limiter.peek(id, limits)).toMatchObject({ minute: { used: 3, remaining: 97 }, day: { used: 3, remaining: 9_997 } });
      expect(await limiter.peek(id, limits)).toMatchObject({ minute: { used: 3 }, day: { used: 3 } });
      expect((await limiter.consume(id, limits)).day.used).toBe(4);
    });

    it('says in Retry-After and in the window when the next request is admitted, and both agree', async () => {
      const limiter = await make();
      const id = unique('acct');
      const limits = { per_minute: 60, per_day: 10_000 }; // one slot a second
      for (let i = 0; i < 60; i++) await limiter.consume(id, limits);
      const refused = await limiter.consume(id, limits);
      expect(refused).toMatchObject({ allowed: false, violated: 'minute', retryAfterSeconds: 1, minute: { remaining: 0, nextSeconds: 1 } });
      now += refused.retryAfterSeconds * 1000 - 1;
      expect((await limiter.consume(id, limits)).allowed).toBe(false);
      now += 1;
      expect((await limiter.consume(id, limits)).allowed).toBe(true);
    });

    it('caps the minute bucket when the limit is lowered: the wait stays within one slot of the new limit', async () => {
      const limiter = await make();
      const id = unique('acct');
      for (let i = 0; i < 60; i++) await limiter.consume(id, { per_minute: 100, per_day: 10_000 });
      const lowered = { per_minute: 5, per_day: 10_000 };
      const refused = await limiter.consume(id, lowered);
      expect(refused).toMatchObject({ allowed: false, violated: 'minute', minute: { limit: 5, used: 5, remaining: 0 } });
      // A full bucket of 5 frees one slot every 12 s; the old level of 60 would have meant 672 s.
      expect(refused.retryAfterSeconds).toBe(12);
      expect(refused.minute.resetSeconds).toBe(60);
    });

    it("admits a key's request only when it fits the key's own budget and the account's, and counts it in both or neither", async () => {
      const limiter = await make();
      const id = unique('acct');
      const accountLimits = { per_minute: 100, per_day: 10_000 };
      const key = { id: unique('key'), limits: { per_minute: 5, per_day: 1e15 } };
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
      const id = unique('acct');
      const accountLimits = { per_minute: 3, per_day: 10_000 };
      const key = { id: unique('key'), limits: { per_minute: 1e15, per_day: 100 } };
      for (let i = 0; i < 3; i++) expect((await limiter.consume(id, accountLimits)).allowed).toBe(true);
      expect(await limiter.consume(id, accountLimits, { key })).toMatchObject({ allowed: false, limitedBy: 'account', violated: 'minute' });
      expect((await limiter.peek(id, accountLimits, key)).day).toMatchObject({ limit: 100, used: 0 });
    });

    it('counts a request of cost n as n requests, and refuses one that does not fit whole', async () => {
      const limiter = await make();
      const id = unique('acct');
      const limits = { per_minute: 10, per_day: 10_000 };
      expect(await limiter.consume(id, limits, { cost: 7 })).toMatchObject({ allowed: true, minute: { used: 7, remaining: 3 } });
      expect(await limiter.consume(id, limits, { cost: 4 })).toMatchObject({ allowed: false, violated: 'minute', minute: { used: 7 } });
      expect(await limiter.consume(id, limits, { cost: 3 })).toMatchObject({ allowed: true, minute: { remaining: 0 }, day: { used: 10 } });
    });

    it('names the budget that refused, with its own window, when both are spent', async () => {
      const limiter = await make();
      const id = unique('acct');
      const accountLimits = { per_minute: 100, per_day: 10_000 };
      const key = { id: unique('key'), limits: { per_minute: 5, per_day: 1e15 } };
      for (let i = 0; i < 5; i++) expect((await limiter.consume(id, accountLimits, { key })).allowed).toBe(true);
      for (let i = 0; i < 95; i++) expect((await limiter.consume(id, accountLimits)).allowed).toBe(true);
      // Both minute windows are spent; the key's frees a slot in 12 s, the account's in 0.6 s.
      const refused = await limiter.consume(id, accountLimits, { key });
      expect(refused).toMatchObject({ allowed: false, violated: 'minute', limitedBy: 'api_key', minute: { limit: 5, remaining: 0 } });
      expect(refused.retryAfterSeconds).toBe(refused.minute.nextSeconds);
      expect(refused.retryAfterSeconds).toBe(12);
    });
  });

  describe('attempt buckets', () => {
    const bucket = (key: string, limit: number, windowSeconds = 60): AttemptBucket => ({ key, limit, windowSeconds });

    it('admits exactly the limit in a burst, then refuses with the wait until the next slot', async () => {
      const limiter = await make();
      const b = bucket(unique('burst'), 5);
      const decisions = [];
      for (let i = 0; i < 7; i++) decisions.push(await limiter.take([b]));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
      expect(decisions[5]!.retryAfterSeconds).toBe(12); // one slot frees every 60/5 s
      now += 12_000;
      expect((await limiter.take([b])).allowed).toBe(true);
      expect((await limiter.take([b])).allowed).toBe(false);
    });

    it('never admits more than the limit from concurrent takes', async () => {
      const limiter = await make();
      const b = bucket(unique('concurrent'), 10, 900);
      const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.take([b])));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    });

    it('takes from several buckets all or none: a full bucket leaves the others untouched', async () => {
      const limiter = await make();
      const [small, large] = [bucket(unique('small'), 2), bucket(unique('large'), 100)];
      expect((await limiter.take([small, large])).remaining).toBe(1);
      expect((await limiter.take([small, large])).allowed).toBe(true);
      const refused = await limiter.take([small, large]);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
      // The large bucket counted two attempts, not three: 98 left before this take.
      expect((await limiter.take([large])).remaining).toBe(97);
    });

    it('waits for the slowest full bucket', async () => {
      const limiter = await make();
      const [minute, hour] = [bucket(unique('minute'), 1, 60), bucket(unique('hour'), 1, 3600)];
      await limiter.take([minute, hour]);
      expect((await limiter.take([minute, hour])).retryAfterSeconds).toBe(3600);
    });

    it('gives an attempt back, and never below empty', async () => {
      const limiter = await make();
      const b = bucket(unique('give-back'), 3);
      for (let i = 0; i < 3; i++) await limiter.take([b]);
      expect((await limiter.take([b])).allowed).toBe(false);
      await limiter.giveBack([b]);
      expect(await limiter.take([b])).toMatchObject({ allowed: true, remaining: 0 });
      // Giving back more than was taken leaves an empty bucket, not credit.
      for (let i = 0; i < 6; i++) await limiter.giveBack([b]);
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await limiter.take([b])).allowed);
      expect(after).toEqual([true, true, true, false]);
    });

    it('keeps keys apart and resets one', async () => {
      const limiter = await make();
      const [a, b] = [bucket(unique('a'), 1), bucket(unique('b'), 1)];
      await limiter.take([a]);
      expect((await limiter.take([a])).allowed).toBe(false);
      expect((await limiter.take([b])).allowed).toBe(true);
      await limiter.reset(a.key);
      expect((await limiter.take([a])).allowed).toBe(true);
    });

    it('keeps attempt buckets apart from request budgets of the same name', async () => {
      const limiter = await make();
      const name = unique('shared');
      await limiter.take([bucket(name, 1)]);
      expect(await limiter.consume(name, { per_minute: 1, per_day: 10 })).toMatchObject({ allowed: true });
      expect((await limiter.take([bucket(name, 1)])).allowed).toBe(false);
    });
  });
}
