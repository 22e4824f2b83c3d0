import type { Redis } from 'ioredis';
import type { AttemptLimiter, LimitDecision } from './attempt-limiter.js';

/**
 * The attempt limiter shared by all instances: the same GCRA as the memory one, in one Lua
 * script per call, on the caller's clock (ARGV[4]). ARGV[3] = 1 counts the attempt, 0 only peeks.
 */
const SCRIPT = `
local now = tonumber(ARGV[4])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2]) * 1000
local interval = window / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nxt = tat + interval
local allow_at = nxt - window
if allow_at > now then return {0, 0, math.ceil((allow_at - now) / 1000)} end
local used = tat
if ARGV[3] == '1' then
  redis.call('SET', KEYS[1], tostring(nxt), 'PX', math.ceil(nxt - now) + 1000)
  used = nxt
end
return {1, math.floor((window - (used - now)) / interval), 0}
`;

export function createRedisAttemptLimiter(redis: Redis, keyPrefix = 'gatehouse:attempts:', now: () => number = Date.now): AttemptLimiter {
  redis.defineCommand('gatehouseAttempt', { numberOfKeys: 1, lua: SCRIPT });
  const client = redis as unknown as { gatehouseAttempt(key: string, limit: number, window: number, count: string, now: number): Promise<[number, number, number]> };
  const run = async (key: string, limit: number, windowSeconds: number, count: boolean): Promise<LimitDecision> => {
    const [allowed, remaining, retry] = await client.gatehouseAttempt(keyPrefix + key, limit, windowSeconds, count ? '1' : '0', now());
    return { allowed: allowed === 1, remaining: Math.max(0, remaining), retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, retry) };
  };
  return {
    hit: (key, limit, windowSeconds) => run(key, limit, windowSeconds, true),
    peek: (key, limit, windowSeconds) => run(key, limit, windowSeconds, false),
    reset: async (key) => void (await redis.del(keyPrefix + key)),
  };
}

/** Redis first; on failure this instance's memory limiter (see fallback-rate-limiter.ts for why). */
export function attemptLimiterWithFallback(primary: AttemptLimiter, fallback: AttemptLimiter, onFallback: (e: unknown) => void): AttemptLimiter {
  const guard = <A extends unknown[], R>(fn: (p: AttemptLimiter) => (...a: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await fn(primary)(...args);
    } catch (error) {
      onFallback(error);
      return fn(fallback)(...args);
    }
  };
  return { hit: guard((l) => l.hit), peek: guard((l) => l.peek), reset: guard((l) => l.reset) };
}
