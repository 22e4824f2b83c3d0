import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter } from './rate-limiter.js';
import type { Limits } from './tiers.js';

/**
 * Both windows in one atomic step per request: the script drains the minute bucket, reads the
 * day counter, decides, and writes both only when the request is admitted.
 *
 * Requests are batched: every consume() of one event-loop turn goes to Redis in ONE script call
 * (KEYS = one per request, ARGV = now, then per_minute and per_day per request), processed in
 * order inside the script, so the count stays exact (two requests of one account in a batch see
 * each other) while the server pays one command, one promise and one reply per batch instead of
 * per request. That per-command cost was most of an authenticated request's CPU in Redis mode.
 *
 * Time comes from the calling instance's clock: a skew between instances cannot over-admit,
 * because the bucket never drains across a negative interval and the check is level + 1 ≤ limit.
 * It returns the inputs it decided on; `decide` then derives the same full answer as memory.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local day = math.floor(now / 86400000)
local out = {}
for i = 1, #KEYS do
  local per_minute = tonumber(ARGV[i * 2])
  local per_day = tonumber(ARGV[i * 2 + 1])
  local minute_key = KEYS[i] .. ':m'
  local day_key = KEYS[i] .. ':d:' .. day
  local bucket = redis.call('HMGET', minute_key, 'level', 'at')
  local level = 0
  if bucket[1] then
    local elapsed = now - tonumber(bucket[2])
    if elapsed < 0 then elapsed = 0 end
    level = tonumber(bucket[1]) - elapsed * per_minute / 60000
    if level < 0 then level = 0 end
  end
  local day_used = tonumber(redis.call('GET', day_key) or '0')
  out[#out + 1] = tostring(level)
  out[#out + 1] = day_used
  if level + 1 <= per_minute + 1e-9 and day_used < per_day then
    local at = tonumber(bucket[2] or '0')
    if at < now then at = now end
    redis.call('HSET', minute_key, 'level', tostring(level + 1), 'at', at)
    redis.call('PEXPIRE', minute_key, 61000)
    redis.call('INCR', day_key)
    if day_used == 0 then redis.call('PEXPIRE', day_key, 86400000 - (now % 86400000) + 60000) end
  end
end
return out
`;

/** Bounds how long one script call holds Redis (each request is a handful of commands). */
const MAX_BATCH = 256;

type Reply = (string | number)[]; // level (string: Lua numbers are truncated), day used; per request

interface Pending {
  key: string;
  limits: Limits;
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
}

export function createRedisRateLimiter(redis: Redis, keyPrefix = 'gatehouse:rl:', now: () => number = Date.now): RateLimiter {
  // No numberOfKeys: the key count is the first argument of each call.
  redis.defineCommand('gatehouseRateLimitBatch', { lua: SCRIPT });
  const client = redis as unknown as { gatehouseRateLimitBatch(...args: (string | number)[]): Promise<Reply> };
  let queue: Pending[] = [];
  let scheduled = false;

  function send(batch: Pending[]): void {
    const at = now();
    const args: (string | number)[] = [batch.length];
    for (const p of batch) args.push(p.key);
    args.push(at);
    for (const p of batch) args.push(p.limits.per_minute, p.limits.per_day);
    client.gatehouseRateLimitBatch(...args).then(
      (reply) => {
        for (let i = 0; i < batch.length; i++) {
          const p = batch[i]!;
          p.resolve(decide({ now: at, level: Number(reply[i * 2]), dayUsed: Number(reply[i * 2 + 1]), limits: p.limits }).decision);
        }
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
  }

  // setImmediate: after every request that arrived in this turn of the event loop has asked.
  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (let i = 0; i < batch.length; i += MAX_BATCH) send(batch.slice(i, i + MAX_BATCH));
  }

  return {
    consume(accountId, limits): Promise<RateDecision> {
      return new Promise((resolve, reject) => {
        queue.push({ key: keyPrefix + accountId, limits, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    close: async () => {},
  };
}
