import { afterEach, describe, expect, it } from 'vitest';
import { withFallback } from '../../src/kernel/limits/fallback-limiter.js';
import type { Limiter } from '../../src/kernel/limits/limiter.js';
import { createMemoryLimiter } from '../../src/kernel/limits/memory-limiter.js';
import { createRedisLimiter } from '../../src/kernel/limits/redis-limiter.js';
import { connectRedis } from '../../src/kernel/redis.js';
import { limiterContract } from './limiter.contract.js';

describe('memory limiter', () => {
  limiterContract(async (now) => createMemoryLimiter(now));

  it('decides at once, without a promise (the authenticate step of every request goes on in the same turn)', () => {
    const limiter = createMemoryLimiter();
    expect(limiter.consume('acct', { per_minute: 1, per_day: 10 })).toMatchObject({ allowed: true });
    expect(limiter.take([{ key: 'k', limit: 1, windowSeconds: 60 }])).toMatchObject({ allowed: true });
  });
});

/** A store that answers every step with an error, a turn later: Redis while it is down. */
function unreachable(): Limiter {
  const down = () => new Error('connection is closed');
  const fail = () => new Promise<never>((_, reject) => setImmediate(() => reject(down())));
  return {
    consume: fail, peek: fail, take: fail, giveBack: fail, reset: fail,
    close: async () => {},
  };
}

describe('fallback limiter while its primary fails', () => {
  limiterContract(async (now) => withFallback(unreachable(), createMemoryLimiter(now), () => {}));
});

// Needs a real Redis: runs when REDIS_URL is set (.ci/run sets it for its second pass).
describe.runIf(process.env.REDIS_URL)('redis limiter', () => {
  async function redisLimiter(now: () => number): Promise<Limiter> {
    const redis = await connectRedis(process.env.REDIS_URL!, 'commands');
    return { ...createRedisLimiter(redis, `test:${Math.random().toString(36).slice(2)}:`, now), close: async () => void redis.disconnect() };
  }

  limiterContract(redisLimiter);

  describe('under the fallback, while Redis answers', () => {
    const fallbacks: unknown[] = [];
    afterEach(() => expect(fallbacks).toEqual([]));
    limiterContract(async (now) => withFallback(await redisLimiter(now), createMemoryLimiter(now), (error) => fallbacks.push(error)));
  });

  it('counts on from the state an earlier release left in Redis, and leaves state it can read', async () => {
    // The keys and values as every release has written them: instances of two releases count
    // together during a deploy, so neither may reset the other's windows (the day's least of all).
    const now = 1_700_000_000_000;
    const day = Math.floor(now / 86_400_000);
    const redis = await connectRedis(process.env.REDIS_URL!, 'commands');
    const prefix = `test:${Math.random().toString(36).slice(2)}:`;
    try {
      await redis.hset(`${prefix}rl:acct:m`, 'level', '3', 'at', String(now));
      await redis.set(`${prefix}rl:acct:d:${day}`, '40');
      await redis.set(`${prefix}attempts:login`, String(now + 2 * 20_000)); // two of 3 attempts a minute: one slot is 20 s
      const limiter = createRedisLimiter(redis, prefix, () => now);

      expect(await limiter.consume('acct', { per_minute: 5, per_day: 1_000 })).toMatchObject({ allowed: true, minute: { used: 4 }, day: { used: 41 } });
      expect(await limiter.consume('acct', { per_minute: 1_000, per_day: 41 })).toMatchObject({ allowed: false, violated: 'day' });
      const login = { key: 'login', limit: 3, windowSeconds: 60 };
      expect(await limiter.take([login])).toEqual({ allowed: true, remaining: 0, retryAfterSeconds: 0 });
      expect(await limiter.take([login])).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 20 });

      // What it wrote is what the earlier release reads: the same keys, the same values.
      expect(await redis.hgetall(`${prefix}rl:acct:m`)).toEqual({ level: '4', at: String(now) });
      expect(await redis.get(`${prefix}rl:acct:d:${day}`)).toBe('41');
      expect(Number(await redis.get(`${prefix}attempts:login`))).toBe(now + 3 * 20_000);
      expect(await redis.pttl(`${prefix}rl:acct:m`)).toBeGreaterThan(0);
      expect(await redis.pttl(`${prefix}attempts:login`)).toBeGreaterThan(0);
      expect((await redis.keys(`${prefix}*`)).sort()).toEqual([`${prefix}attempts:login`, `${prefix}rl:acct:d:${day}`, `${prefix}rl:acct:m`]);
    } finally {
      const left = await redis.keys(`${prefix}*`);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
    }
  });
});
