import { describe, expect, it } from 'vitest';
import { withFallback } from './fallback-limiter.js';
import type { Limiter } from './limiter.js';
import { createMemoryLimiter } from './memory-limiter.js';

/**
 * The wrapper's own logic: which store answers, and what it reports. That it answers like any
 * store is test/contracts/limiter.test.ts; a real Redis going away is exercised end to end in
 * test/redis-outage.test.ts and test/faults/redis-restart.test.ts.
 */
function switchablePrimary(): Limiter & { down: boolean } {
  const counted = createMemoryLimiter();
  const state = { down: false };
  const down = () => new Error('connection is closed');
  // Asynchronous like a round trip, whichever way it ends.
  const failing = <T>(step: () => T | Promise<T>) =>
    new Promise<T>((resolve, reject) => setImmediate(() => (state.down ? reject(down()) : Promise.resolve().then(step).then(resolve, reject))));
  return Object.assign(state, {
    consume: (...args: Parameters<Limiter['consume']>) => failing(() => counted.consume(...args)),
    peek: (...args: Parameters<Limiter['peek']>) => failing(() => counted.peek(...args)),
    take: (...args: Parameters<Limiter['take']>) => failing(() => counted.take(...args)),
    giveBack: (...args: Parameters<Limiter['giveBack']>) => failing(() => counted.giveBack(...args)),
    reset: (...args: Parameters<Limiter['reset']>) => failing(() => counted.reset(...args)),
    close: () => counted.close(),
  });
}

const limits = { per_minute: 3, per_day: 100 };
const login = { key: 'login-fail:ip:192.0.2.1', limit: 2, windowSeconds: 60 };

describe('withFallback', () => {
  it('answers from the primary while it works, from memory while it fails, and reports once per 10 s', async () => {
    const primary = switchablePrimary();
    const reports: unknown[] = [];
    const limiter = withFallback(primary, createMemoryLimiter(), (error) => reports.push(error));

    expect((await limiter.consume('a', limits)).minute.used).toBe(1);
    expect((await limiter.take([login])).remaining).toBe(1);

    primary.down = true;
    // The fallback counts on its own: three admitted, the fourth refused; two attempts, then none.
    const during = await Promise.all([1, 2, 3, 4].map(() => limiter.consume('a', limits)));
    expect(during.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect((await Promise.all([1, 2, 3].map(() => limiter.take([login])))).map((d) => d.allowed)).toEqual([true, true, false]);
    await limiter.giveBack([login]);
    expect((await limiter.take([login])).allowed).toBe(true);
    expect(reports).toHaveLength(1);
    expect(String(reports[0])).toContain('connection is closed');

    primary.down = false;
    expect((await limiter.consume('a', limits)).minute.used).toBe(2); // the primary's own count resumes
    expect((await limiter.take([login])).remaining).toBe(0);
  });

  it('peeks at the primary while it works, at memory while it fails, and reports no read', async () => {
    const primary = switchablePrimary();
    const reports: unknown[] = [];
    const limiter = withFallback(primary, createMemoryLimiter(), (error) => reports.push(error));
    await limiter.consume('b', limits);
    expect((await limiter.peek('b', limits)).minute.used).toBe(1);
    primary.down = true;
    expect((await limiter.peek('b', limits)).minute.used).toBe(0); // this instance's own memory counted nothing yet
    expect(reports).toEqual([]);
  });
});
