import { expect, it } from 'vitest';
import type { AttemptBucket, AttemptLimiter } from '../../src/kernel/limits/attempt-limiter.js';

/**
 * What every AttemptLimiter must do, run against each implementation (memory always, Redis when
 * REDIS_URL is set). `create` gets a clock the test moves by hand; both implementations take
 * the time from their caller, so no test here waits.
 */
export function attemptLimiterContract(create: (now: () => number) => Promise<AttemptLimiter>): void {
  let now = 1_700_000_000_000;
  const clock = () => now;
  const unique = (name: string) => `${name}:${Math.random().toString(36).slice(2)}`;
  const bucket = (key: string, limit: number, windowSeconds = 60): AttemptBucket => ({ key, limit, windowSeconds });

  it('admits exactly the limit in a burst, then refuses with the wait until the next slot', async () => {
    const limiter = await create(clock);
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
    const limiter = await create(clock);
    const b = bucket(unique('concurrent'), 10, 900);
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.take([b])));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('takes from several buckets all or none: a full bucket leaves the others untouched', async () => {
    const limiter = await create(clock);
    const [small, large] = [bucket(unique('small'), 2), bucket(unique('large'), 100)];
    expect((await limiter.take([small, large])).remaining).toBe(1);
    expect((await limiter.take([small, large])).allowed).toBe(true);
    const refused = await limiter.take([small, large]);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    // The large bucket counted two attempts, not three: 98 left before this take.
    expect((await limiter.take([large])).remaining).toBe(97);
  });

  it('answers takeThen as take answers, from the same buckets', async () => {
    const limiter = await create(clock);
    const [small, large] = [bucket(unique('then-small'), 2), bucket(unique('then-large'), 100)];
    const takeThen = (buckets: AttemptBucket[]) => new Promise((resolve, reject) => limiter.takeThen(buckets, (error, decision) => (decision ? resolve(decision) : reject(error))));
    expect(await takeThen([small, large])).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 0 });
    expect(await limiter.take([small, large])).toMatchObject({ allowed: true, remaining: 0 });
    expect(await takeThen([small, large])).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    expect((await takeThen([large])) as { remaining: number }).toMatchObject({ remaining: 97 });
  });

  it('waits for the slowest full bucket', async () => {
    const limiter = await create(clock);
    const [minute, hour] = [bucket(unique('minute'), 1, 60), bucket(unique('hour'), 1, 3600)];
    await limiter.take([minute, hour]);
    expect((await limiter.take([minute, hour])).retryAfterSeconds).toBe(3600);
  });

  it('gives an attempt back, and never below empty', async () => {
    const limiter = await create(clock);
    const b = bucket(unique('give-back'), 3);
    for (let i = 0; i < 3; i++) await limiter.take([b]);
    expect((await limiter.take([b])).allowed).toBe(false);
    await limiter.giveBack([b]);
    expect((await limiter.take([b]))).toMatchObject({ allowed: true, remaining: 0 });
    // Giving back more than was taken leaves an empty bucket, not credit.
    for (let i = 0; i < 6; i++) await limiter.giveBack([b]);
    const after = [];
    for (let i = 0; i < 4; i++) after.push((await limiter.take([b])).allowed);
    expect(after).toEqual([true, true, true, false]);
  });

  it('keeps keys apart and resets one', async () => {
    const limiter = await create(clock);
    const [a, b] = [bucket(unique('a'), 1), bucket(unique('b'), 1)];
    await limiter.take([a]);
    expect((await limiter.take([a])).allowed).toBe(false);
    expect((await limiter.take([b])).allowed).toBe(true);
    await limiter.reset(a.key);
    expect((await limiter.take([a])).allowed).toBe(true);
  });
}
