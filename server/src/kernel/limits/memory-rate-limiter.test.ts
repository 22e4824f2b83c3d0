import { describe } from 'vitest';
import { createMemoryRateLimiter } from './memory-rate-limiter.js';
import { rateLimiterContract } from '../../../test/contracts/rate-limiter.contract.js';

describe('memory rate limiter', () => {
  rateLimiterContract(async () => createMemoryRateLimiter());
});
