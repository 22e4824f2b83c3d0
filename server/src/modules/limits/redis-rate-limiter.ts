import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter } from './rate-limiter.js';

/**
 * Both windows in one round trip and one atomic step: the script drains the minute bucket,
 * reads the day counter, decides, and writes both only when the request is admitted.
 * Time comes from the calling instance's clock: a skew between instances cannot over-admit,
 * because the bucket never drains across a negative interval and the check is level + 1 ≤ limit.
 * It returns the inputs it decided on; `decide` then derives the same full answer as memory.
 */
const SCRIPT = `
local now = tonumber(ARGV[3])
local per_minute = tonumber(ARGV[1])
local per_day = tonumber(ARGV[2])
local minute_key = KEYS[1] .. ':m'
local day_key = KEYS[1] .. ':d:' .. math.floor(now / 86400000)
local bucket = redis.call('HMGET', minute_key, 'level', 'at')
local level = 0
if bucket[1] then
  local elapsed = now - tonumber(bucket[2])
  if elapsed < 0 then elapsed = 0 end
  level = tonumber(bucket[1]) - elapsed * per_minute / 60000
  if level < 0 then level = 0 end
end
local day_used = tonumber(redis.call('GET', day_key) or '0')
if level + 1 > per_minute + 1e-9 or day_used >= per_day then
  return {0, now, tostring(level), day_used}
end
local at = tonumber(bucket[2] or '0')
if at < now then at = now end
redis.call('HSET', minute_key, 'level', tostring(level + 1), 'at', at)
redis.call('PEXPIRE', minute_key, 61000)
redis.call('INCR', day_key)
if day_used == 0 then redis.call('PEXPIRE', day_key, 86400000 - (now % 86400000) + 60000) end
return {1, now, tostring(level), day_used}
`;

type Reply = [admitted: number, now: number, level: string, dayUsed: number];

export function createRedisRateLimiter(redis: Redis, keyPrefix = 'gatehouse:rl:', now: () => number = Date.now): RateLimiter {
  redis.defineCommand('gatehouseRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  const client = redis as unknown as { gatehouseRateLimit(key: string, perMinute: number, perDay: number, now: number): Promise<Reply> };
  return {
    async consume(accountId, limits): Promise<RateDecision> {
      const [, at, level, dayUsed] = await client.gatehouseRateLimit(keyPrefix + accountId, limits.per_minute, limits.per_day, now());
      return decide({ now: at, level: Number(level), dayUsed, limits }).decision;
    },
    close: async () => {},
  };
}
