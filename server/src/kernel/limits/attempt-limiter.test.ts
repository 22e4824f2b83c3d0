import { afterAll, describe } from 'vitest';
import { connectRedis } from '../redis.js';
import { attemptLimiterContract } from '../../../test/contracts/attempt-limiter.contract.js';
import { createMemoryAttemptLimiter } from './attempt-limiter.js';
import { createRedisAttemptLimiter } from './redis-attempt-limiter.js';

describe('memory attempt limiter', () => {
  attemptLimiterContract(async (now) => createMemoryAttemptLimiter({ now }));
});

// Needs a real Redis: runs when REDIS_URL is set (.ci/run sets it for its second pass).
describe.runIf(process.env.REDIS_URL)('redis attempt limiter', () => {
  const connections: Array<{ disconnect(): void }> = [];
  attemptLimiterContract(async (now) => {
    const redis = await connectRedis(process.env.REDIS_URL!, 'commands');
    connections.push(redis);
    return createRedisAttemptLimiter(redis, `test:${Math.random().toString(36).slice(2)}:`, now);
  });
  afterAll(() => connections.forEach((c) => c.disconnect()));
});
