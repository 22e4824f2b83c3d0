import type { Redis } from 'ioredis';
import type { Limits } from '../access-terms/tiers.js';
import { batchPerTurn } from '../turn-batch.js';
import type { AttemptBucket, BudgetState, Limiter, LimitDecision, RateDecision } from './limiter.js';
import { budgetState, DAY_MS, decide, decideTake, drain, MINUTE_MS, tighter, type Meter } from './windows.js';

/**
 * The store shared by every instance. Each decision is one atomic step inside Redis: the script
 * finds every window's level, checks that the request fits them all, and counts it in all of them
 * or (refused) in none. It answers the levels it decided on, and windows.ts derives the full
 * answer from them, as it does for the memory store.
 *
 * Decisions are batched: every one asked in one event-loop turn goes to Redis in ONE script call,
 * processed in order inside it, so counts stay exact (two requests of one account in a batch see
 * each other) while the server pays one command, one promise and one reply per batch instead of
 * per request; that per-command cost was most of an authenticated request's CPU in Redis mode.
 * Inside the script each window is read once per batch, carried in a Lua table from one decision
 * to the next, and written once at the end: a busy account's 30 requests in a batch cost Redis two
 * reads and four writes. The answers are those of the decisions one by one, since nothing else
 * runs inside Redis while a script does.
 *
 * Time comes from the calling instance's clock (ARGV): a skew between instances cannot over-admit,
 * because a bucket never drains across a negative interval and the check is level + cost ≤ limit.
 *
 * Keys and values, as the releases before this one wrote them: instances of two releases count
 * together during a deploy, so these must not change (test/contracts/limiter.test.ts checks them).
 *   <prefix>rl:<budget>:m           hash {level, at}: the minute bucket of an account's budget,
 *                                   or of an API key's own (<budget> = key:<key id>)
 *   <prefix>rl:<budget>:d:<day>     count of the UTC day (days since the epoch)
 *   <prefix>attempts:<key>          an attempt bucket as its GCRA theoretical arrival time (epoch
 *                                   ms: when it is empty again); its level is (tat - now) × limit / window
 *
 * KEYS: each decision's windows in turn. ARGV: now, then per decision its kind ('b' a budget
 * request: per window per_minute and per_day; 'a' attempts: per window limit and window seconds),
 * its cost (-1 gives an attempt back: that always fits, and never goes below empty) and its number
 * of windows. The reply is, per window, its level before the decision (%.17g, so the answer derived
 * from it is exactly the script's) and, for a budget, its day's count before it.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local day = math.floor(now / 86400000)
local windows, order, out = {}, {}, {}
local function load(key, kind, limit, span)
  local w = windows[key]
  if w then return w end
  if kind == 'b' then
    local bucket = redis.call('HMGET', key .. ':m', 'level', 'at')
    local used = tonumber(redis.call('GET', key .. ':d:' .. day) or '0')
    w = { level = tonumber(bucket[1]) or 0, at = tonumber(bucket[2]) or now, day_used = used, day_before = used }
  else
    local tat = tonumber(redis.call('GET', key) or '0')
    w = { level = math.max(0, tat - now) * limit / span, at = now }
  end
  w.kind = kind
  windows[key] = w
  order[#order + 1] = key
  return w
end
local function level_of(w, limit, span)
  local elapsed = now - w.at
  if elapsed < 0 then elapsed = 0 end
  local level = w.level - elapsed * limit / span
  if level < 0 then level = 0 end
  if level > limit then level = limit end
  return level
end
local k, a = 1, 2
while a <= #ARGV do
  local kind, cost, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local fits, ws, levels, units = true, {}, {}, {}
  for j = 1, n do
    local limit, other = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    local span = 60000
    if kind == 'a' then span = other * 1000 end
    local w = load(KEYS[k], kind, limit, span)
    k = k + 1
    local level = level_of(w, limit, span)
    out[#out + 1] = string.format('%.17g', level)
    if level + cost > limit + 1e-9 then fits = false end
    if kind == 'b' then
      out[#out + 1] = w.day_used
      if w.day_used + cost > other then fits = false end
    end
    ws[j], levels[j], units[j] = w, level, span / limit
  end
  if fits then
    for j = 1, n do
      local w = ws[j]
      w.level = math.max(0, levels[j] + cost)
      if w.at < now then w.at = now end
      w.unit = units[j]
      w.dirty = true
      if kind == 'b' then w.day_used = w.day_used + cost end
    end
  end
end
for _, key in ipairs(order) do
  local w = windows[key]
  if w.dirty and w.kind == 'b' then
    local day_key = key .. ':d:' .. day
    redis.call('HSET', key .. ':m', 'level', tostring(w.level), 'at', w.at)
    redis.call('PEXPIRE', key .. ':m', 61000)
    redis.call('INCRBY', day_key, w.day_used - w.day_before)
    if w.day_before == 0 then redis.call('PEXPIRE', day_key, 86400000 - (now % 86400000) + 60000) end
  elseif w.dirty then
    local tat = w.at + w.level * w.unit
    if tat <= now then redis.call('DEL', key) else redis.call('SET', key, tostring(tat), 'PX', math.ceil(tat - now) + 1000) end
  end
end
return out
`;

/** Bounds how long one script call holds Redis (each decision is a handful of commands). */
const MAX_BATCH = 256;

/** Node-style: an error (the store could not decide; `decision` is then undefined), or the decision. */
type Answer<D> = (error: unknown, decision?: D) => void;

/** A decision waiting for its turn's script call: a budget request ('b': the account's budget, and the API key's own when it has one) or a take or give-back of attempts ('a'). */
type Pending =
  | { kind: 'b'; budget: string; limits: Limits; cost: number; apiKey: string | undefined; apiKeyLimits: Limits | undefined; answer: Answer<RateDecision> }
  | { kind: 'a'; buckets: readonly AttemptBucket[]; cost: 1; answer: Answer<LimitDecision> }
  | { kind: 'a'; buckets: readonly AttemptBucket[]; cost: -1; answer: Answer<true> };

/** Answers every decision of a batch even if one answer throws (a bug): the first such error is rethrown afterwards, never swallowed. */
function answerEach(batch: Pending[], answer: (p: Pending) => void): void {
  let thrown: { error: unknown } | undefined;
  for (const p of batch) {
    try {
      answer(p);
    } catch (error) {
      thrown ??= { error };
    }
  }
  if (thrown) throw thrown.error;
}

export function createRedisLimiter(redis: Redis, prefix = 'gatehouse:', now: () => number = Date.now): Limiter {
  const budgets = `${prefix}rl:`;
  const attempts = `${prefix}attempts:`;
  // No numberOfKeys: the key count is each call's first argument.
  redis.defineCommand('gatehouseLimits', { lua: SCRIPT });
  const client = redis as unknown as { gatehouseLimits(...args: (string | number)[]): Promise<(string | number)[]> };

  function send(batch: Pending[]): void {
    const at = now();
    const keys: string[] = [];
    const argv: (string | number)[] = [at];
    for (const p of batch) {
      if (p.kind === 'b') {
        keys.push(p.budget);
        argv.push('b', p.cost, p.apiKey === undefined ? 1 : 2, p.limits.per_minute, p.limits.per_day);
        if (p.apiKey !== undefined) {
          keys.push(p.apiKey);
          argv.push(p.apiKeyLimits!.per_minute, p.apiKeyLimits!.per_day);
        }
        continue;
      }
      argv.push('a', p.cost, p.buckets.length);
      for (const b of p.buckets) {
        keys.push(attempts + b.key);
        argv.push(b.limit, b.windowSeconds);
      }
    }
    client.gatehouseLimits(keys.length, ...keys, ...argv).then(
      (reply) => {
        let r = 0;
        const meter = (limits: Limits): Meter => ({ level: Number(reply[r++]), dayUsed: Number(reply[r++]), limits });
        answerEach(batch, (p) => {
          if (p.kind === 'b') {
            const account = meter(p.limits);
            const key = p.apiKey === undefined ? undefined : meter(p.apiKeyLimits!);
            return p.answer(null, decide({ now: at, account, key, cost: p.cost }).decision);
          }
          const levels: number[] = [];
          for (let i = 0; i < p.buckets.length; i++) levels.push(Number(reply[r++]));
          if (p.cost === 1) p.answer(null, decideTake(p.buckets, levels));
          else p.answer(null, true);
        });
      },
      (error: unknown) => answerEach(batch, (p) => p.answer(error)),
    );
  }
  const enqueue = batchPerTurn(send, MAX_BATCH);

  async function peekOne(budget: string, limits: Limits, at: number): Promise<BudgetState> {
    const [bucket, dayUsed] = await Promise.all([redis.hmget(`${budget}:m`, 'level', 'at'), redis.get(`${budget}:d:${Math.floor(at / DAY_MS)}`)]);
    const state = bucket[0] === null || bucket[1] === null ? undefined : { level: Number(bucket[0]), at: Number(bucket[1]) };
    return budgetState({ now: at, level: drain(state, at, limits.per_minute, MINUTE_MS), dayUsed: Number(dayUsed ?? 0), limits });
  }

  /** One answer of the turn's batch as a promise. */
  const answered = <D>(send: (answer: Answer<D>) => void) =>
    new Promise<D>((resolve, reject) => send((error, decision) => (decision === undefined ? reject(error) : resolve(decision))));
  return {
    consume: (accountId, limits, options) => answered<RateDecision>((answer) => {
      const key = options?.key;
      enqueue({ kind: 'b', budget: budgets + accountId, limits, cost: options?.cost ?? 1, apiKey: key && `${budgets}key:${key.id}`, apiKeyLimits: key?.limits, answer });
    }),
    async peek(accountId, limits, key) {
      const at = now();
      const [account, own] = await Promise.all([peekOne(budgets + accountId, limits, at), key && peekOne(`${budgets}key:${key.id}`, key.limits, at)]);
      return tighter(account, own);
    },
    take: (buckets) => answered<LimitDecision>((answer) => enqueue({ kind: 'a', buckets, cost: 1, answer })),
    giveBack: (buckets) => new Promise((resolve, reject) => enqueue({ kind: 'a', buckets, cost: -1, answer: (error: unknown, done?: true) => (done ? resolve() : reject(error)) })),
    reset: async (key) => void (await redis.del(attempts + key)),
    close: async () => {},
  };
}
