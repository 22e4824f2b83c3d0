import { describe, expect, it } from 'vitest';
import { createMemoryAttemptLimiter } from './attempt-limiter.js';

describe('memory attempt limiter (GCRA)', () => {
  it('admits exactly the limit in a burst, then refuses with a retry time', async () => {
    let now = 1_000_000;
    const limiter = createMemoryAttemptLimiter({ now: () => now });
    const decisions = [];
    for (let i = 0; i < 7; i++) decisions.push(await limiter.hit('k', 5, 60));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions[4]!.remaining).toBe(0);
    expect(decisions[5]!.retryAfterSeconds).toBe(12); // one slot frees every 60/5 s
    now += 12_000;
    expect((await limiter.hit('k', 5, 60)).allowed).toBe(true);
    expect((await limiter.hit('k', 5, 60)).allowed).toBe(false);
  });

  it('keeps keys apart, peeks without counting and resets', async () => {
    const limiter = createMemoryAttemptLimiter({ now: () => 0 });
    await limiter.hit('a', 1, 60);
    expect((await limiter.peek('a', 1, 60)).allowed).toBe(false);
    expect((await limiter.peek('b', 1, 60)).allowed).toBe(true);
    expect((await limiter.peek('b', 1, 60)).allowed).toBe(true);
    await limiter.reset('a');
    expect((await limiter.hit('a', 1, 60)).allowed).toBe(true);
  });
});
