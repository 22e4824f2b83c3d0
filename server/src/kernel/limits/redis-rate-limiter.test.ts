import { describe } from 'vitest';
import { connectRedis } from '../redis.js';
import { rateLimiterContract } from '../../../test/contracts/rate-limiter.contract.js';
import { createRedisRateLimiter } from './redis-rate-limiter.js';

// Needs a real Redis: runs when REDIS_URL is set (.ci/run sets it for its second pass).
describe.runIf(process.env.REDIS_URL)('redis rate limiter', () => {
  rateLimiterContract(async () => {
    const redis = await connectRedis(process.env.REDIS_URL!, 'commands');
    const limiter = createRedisRateLimiter(redis, `test:${Math.random().toString(36).slice(2)}:`);
    return { ...limiter, close: async () => void redis.disconnect() };
  });
});
