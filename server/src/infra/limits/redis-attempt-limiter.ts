import type { Redis } from 'ioredis';
import { combineDecisions, type AttemptBucket, type AttemptLimiter, type LimitDecision } from './attempt-limiter.js';

/**
 * The attempt limiter shared by all instances: the same GCRA as the memory one (gcraDecision),
 * one Lua script per call, so taking from several buckets is atomic across instances too.
 * Time is the caller's (ARGV[1]); then limit and window per key.
 * TAKE answers per key: allowed (0/1), remaining, wait in ms; it writes only when all allow.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local out, nexts, all = {}, {}, true
for i = 1, #KEYS do
  local window = tonumber(ARGV[i * 2 + 1]) * 1000
  local interval = window / tonumber(ARGV[i * 2])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  local nxt = tat + interval
  local allow_at = nxt - window
  nexts[i] = nxt
  if allow_at > now then
    all = false
    out[#out + 1] = 0; out[#out + 1] = 0; out[#out + 1] = tostring(allow_at - now)
  else
    out[#out + 1] = 1; out[#out + 1] = math.floor((window - (nxt - now)) / interval); out[#out + 1] = '0'
  end
end
if all then
  for i = 1, #KEYS do
    redis.call('SET', KEYS[i], tostring(nexts[i]), 'PX', math.ceil(nexts[i] - now) + 1000)
  end
end
return out
`;

const GIVE_BACK = `
local now = tonumber(ARGV[1])
for i = 1, #KEYS do
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  local back = tat - tonumber(ARGV[i * 2 + 1]) * 1000 / tonumber(ARGV[i * 2])
  if back <= now then
    redis.call('DEL', KEYS[i])
  else
    redis.call('SET', KEYS[i], tostring(back), 'PX', math.ceil(back - now) + 1000)
  end
end
return 1
`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

export function createRedisAttemptLimiter(redis: Redis, keyPrefix = 'gatehouse:attempts:', now: () => number = Date.now): AttemptLimiter {
  // No numberOfKeys: the key count is each call's first argument.
  redis.defineCommand('gatehouseAttemptTake', { lua: TAKE });
  redis.defineCommand('gatehouseAttemptGiveBack', { lua: GIVE_BACK });
  const client = redis as unknown as { gatehouseAttemptTake: Script; gatehouseAttemptGiveBack: Script };
  const args = (buckets: readonly AttemptBucket[]) => {
    const out: (string | number)[] = [buckets.length, ...buckets.map((b) => keyPrefix + b.key), now()];
    for (const b of buckets) out.push(b.limit, b.windowSeconds);
    return out;
  };

  return {
    async take(buckets): Promise<LimitDecision> {
      const reply = (await client.gatehouseAttemptTake(...args(buckets))) as (number | string)[];
      const parts = buckets.map((_, i) => ({ allowed: reply[i * 3] === 1, remaining: Math.max(0, Number(reply[i * 3 + 1])), waitMs: Number(reply[i * 3 + 2]) }));
      return combineDecisions(parts);
    },
    giveBack: async (buckets) => void (await client.gatehouseAttemptGiveBack(...args(buckets))),
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
  return { take: guard((l) => l.take), giveBack: guard((l) => l.giveBack), reset: guard((l) => l.reset) };
}
