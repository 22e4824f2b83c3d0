import { describe, expect, it } from 'vitest';
import { withFallback } from './fallback-rate-limiter.js';
import { createMemoryRateLimiter } from './memory-rate-limiter.js';
import { promisedConsume, type DecisionCallback, type RateLimiter } from './rate-limiter.js';

/**
 * The wrapper's own logic: which limiter answers, and what it reports. A real Redis going away is
 * exercised end to end in test/redis-outage.test.ts and test/faults/redis-restart.test.ts.
 */
function switchablePrimary(): RateLimiter & { down: boolean } {
  const counted = createMemoryRateLimiter(Date.now);
  const state = { down: false };
  // Asynchronous like a round trip, whichever way it ends.
  const consumeThen = (accountId: string, limits: { per_minute: number; per_day: number }, callback: DecisionCallback) =>
    void setImmediate(() => (state.down ? callback(new Error('connection is closed')) : counted.consumeThen(accountId, limits, callback)));
  const peek: RateLimiter['peek'] = async (accountId, limits) => {
    if (state.down) throw new Error('connection is closed');
    return counted.peek(accountId, limits);
  };
  return Object.assign(state, { consumeThen, consume: promisedConsume(consumeThen), peek, close: async () => {} });
}

const limits = { per_minute: 3, per_day: 100 };

describe('withFallback', () => {
  it('answers from the primary while it works, from memory while it fails, and reports once', async () => {
    const primary = switchablePrimary();
    const reports: unknown[] = [];
    const limiter = withFallback(primary, createMemoryRateLimiter(Date.now), (error) => reports.push(error));

    expect((await limiter.consume('a', limits)).minute.used).toBe(1);
    expect(limiter.degraded()).toBe(false);

    primary.down = true;
    // The fallback counts on its own: three admitted, the fourth refused, one report.
    const during = await Promise.all([1, 2, 3, 4].map(() => limiter.consume('a', limits)));
    expect(during.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(limiter.degraded()).toBe(true);
    expect(reports).toHaveLength(1);
    expect(String(reports[0])).toContain('connection is closed');

    primary.down = false;
    const after = await new Promise<{ error: unknown; used?: number }>((resolve) =>
      limiter.consumeThen!('a', limits, (error, decision) => resolve({ error, used: decision?.minute.used })),
    );
    expect(after).toEqual({ error: null, used: 2 }); // the primary's own count resumes
    expect(limiter.degraded()).toBe(false);
  });

  it('peeks at the primary while it works, at memory while it fails', async () => {
    const primary = switchablePrimary();
    const limiter = withFallback(primary, createMemoryRateLimiter(Date.now), () => {});
    await limiter.consume('b', limits);
    expect((await limiter.peek('b', limits)).minute.used).toBe(1);
    primary.down = true;
    expect((await limiter.peek('b', limits)).minute.used).toBe(0); // this instance's own memory counted nothing yet
  });
});
