import type { Redis } from 'ioredis';
import { batchPerTurn } from '../turn-batch.js';
import { combineDecisions, takeThenOf, type AttemptBucket, type AttemptLimiter, type LimitDecision } from './attempt-limiter.js';

/**
 * The attempt limiter shared by all instances: the same GCRA as the memory one (gcraDecision).
 * A take from several buckets is atomic across instances too: all of them, or none.
 *
 * Takes are batched like the account limiter's (kernel/limits/redis-rate-limiter.ts): every take
 * of one event-loop turn goes to Redis in ONE script call, processed in order inside it, so the
 * answers are those of the takes one by one (a bucket's state is carried from one take to the
 * next in a Lua table, read once and written once per batch). The account routes take on every
 * request; one command per request was most of their cost in Redis mode.
 * KEYS: every take's keys, in order. ARGV: now (the caller's clock), the number of takes, then
 * per take its key count and a limit and window per key. TAKE_BATCH answers per key: allowed
 * (0/1), remaining, wait in ms; a take writes only when all its buckets allow.
 */
const TAKE_BATCH = `
local now = tonumber(ARGV[1])
local takes = tonumber(ARGV[2])
local out, tats, dirty = {}, {}, {}
local k, a = 1, 3
for t = 1, takes do
  local n = tonumber(ARGV[a])
  a = a + 1
  local nexts, all = {}, true
  for i = 0, n - 1 do
    local key = KEYS[k + i]
    local window = tonumber(ARGV[a + i * 2 + 1]) * 1000
    local interval = window / tonumber(ARGV[a + i * 2])
    local tat = tats[key]
    if tat == nil then
      tat = tonumber(redis.call('GET', key) or '0')
      tats[key] = tat
    end
    if tat < now then tat = now end
    local nxt = tat + interval
    local allow_at = nxt - window
    nexts[i + 1] = nxt
    if allow_at > now then
      all = false
      out[#out + 1] = 0; out[#out + 1] = 0; out[#out + 1] = tostring(allow_at - now)
    else
      out[#out + 1] = 1; out[#out + 1] = math.floor((window - (nxt - now)) / interval); out[#out + 1] = '0'
    end
  end
  if all then
    for i = 0, n - 1 do
      tats[KEYS[k + i]] = nexts[i + 1]
      dirty[KEYS[k + i]] = true
    end
  end
  k = k + n
  a = a + n * 2
end
for key in pairs(dirty) do
  redis.call('SET', key, tostring(tats[key]), 'PX', math.ceil(tats[key] - now) + 1000)
end
return out
`;

/** Bounds how long one script call holds Redis. */
const MAX_BATCH = 256;

interface PendingTake {
  buckets: readonly AttemptBucket[];
  resolve: (decision: LimitDecision) => void;
  reject: (error: unknown) => void;
}

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
  redis.defineCommand('gatehouseAttemptTakeBatch', { lua: TAKE_BATCH });
  redis.defineCommand('gatehouseAttemptGiveBack', { lua: GIVE_BACK });
  const client = redis as unknown as { gatehouseAttemptTakeBatch: Script; gatehouseAttemptGiveBack: Script };
  const args = (buckets: readonly AttemptBucket[]) => {
    const out: (string | number)[] = [buckets.length, ...buckets.map((b) => keyPrefix + b.key), now()];
    for (const b of buckets) out.push(b.limit, b.windowSeconds);
    return out;
  };

  function send(batch: PendingTake[]): void {
    const keys: string[] = [];
    const rest: (string | number)[] = [now(), batch.length];
    for (const { buckets } of batch) {
      rest.push(buckets.length);
      for (const b of buckets) {
        keys.push(keyPrefix + b.key);
        rest.push(b.limit, b.windowSeconds);
      }
    }
    client.gatehouseAttemptTakeBatch(keys.length, ...keys, ...rest).then(
      (reply) => {
        const answers = reply as (number | string)[];
        let at = 0;
        for (const { buckets, resolve } of batch) {
          const parts = buckets.map(() => {
            const part = { allowed: answers[at] === 1, remaining: Math.max(0, Number(answers[at + 1])), waitMs: Number(answers[at + 2]) };
            at += 3;
            return part;
          });
          resolve(combineDecisions(parts));
        }
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }

  const enqueue = batchPerTurn(send, MAX_BATCH);

  const take = (buckets: readonly AttemptBucket[]): Promise<LimitDecision> => new Promise((resolve, reject) => enqueue({ buckets, resolve, reject }));
  return {
    take,
    takeThen: takeThenOf(take),
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
  const take = guard((l) => l.take);
  return { take, takeThen: takeThenOf(take), giveBack: guard((l) => l.giveBack), reset: guard((l) => l.reset) };
}
