import type { Limits } from '../access-terms/tiers.js';
import type { AttemptBucket, BudgetState, LimitDecision, RateDecision, WindowState } from './limiter.js';

/**
 * The arithmetic of windows, shared by every store so they answer alike. A store finds each
 * window's level now, these functions decide, and the store counts what was admitted; the Redis
 * script (redis-limiter.ts) repeats only the check and the count, inside Redis.
 *
 * A rolling window is a leaky bucket metered in requests (equivalent to GCRA): it holds at most
 * `limit` and drains at `limit` per `spanMs`, so the sustained rate and any burst are both within
 * the limit and no window boundary lets a double burst through. A request of `cost` fits while
 * level + cost ≤ limit. Keeping the level in requests, not in time, means a changed limit (a tier
 * upgrade) applies from the very next request.
 * The day window counts the requests of the UTC calendar day; it is empty again at midnight.
 */
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Slack for levels built of fractions: a request that fits in exact arithmetic must fit here. */
const EPSILON = 1e-9;

/** A rolling window as a store keeps it: `level` requests in the bucket at `at` (epoch ms). */
export interface Bucket {
  level: number;
  at: number;
}

/**
 * The bucket's level now. Never above the limit: when the limit was lowered (a downgrade, a custom
 * limit) the bucket is capped to the new size, so the wait is never longer than the window, rather
 * than the old level draining at the new, slower rate. A clock behind `at` (another instance's)
 * drains nothing, so a skew between instances cannot over-admit.
 */
export function drain(bucket: Bucket | undefined, now: number, limit: number, spanMs: number): number {
  if (!bucket) return 0;
  return Math.min(limit, Math.max(0, bucket.level - (Math.max(0, now - bucket.at) * limit) / spanMs));
}

const fits = (level: number, cost: number, limit: number) => level + cost <= limit + EPSILON;
/** Whole requests that still fit at this level. */
const left = (level: number, limit: number) => Math.max(0, Math.floor(limit - level + EPSILON));
/** Milliseconds until the level has drained down to `to`. */
const drainMs = (level: number, to: number, limit: number, spanMs: number) => ((level - to) * spanMs) / limit;
/** A wait in whole seconds, at least one: a refusal never says "retry in 0 s". */
const waitSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000 - EPSILON));
const secondsToUtcMidnight = (now: number) => Math.ceil((DAY_MS - (now % DAY_MS)) / 1000);

// ---- Attempt buckets: one rolling window each ----------------------------------------------

/**
 * One attempt from every bucket, decided on each bucket's level now (`levels[i]` is
 * `buckets[i]`'s): refused if any bucket is full, then waiting for the slowest; otherwise
 * `remaining` is what the fullest bucket has left after this attempt.
 */
export function decideTake(buckets: readonly AttemptBucket[], levels: readonly number[]): LimitDecision {
  // One pass, no intermediate objects: the account routes take from two buckets on every request.
  let allowed = true;
  let remaining = Infinity;
  let waitMs = 0;
  for (let i = 0; i < buckets.length; i++) {
    const { limit, windowSeconds } = buckets[i]!;
    const level = levels[i]!;
    if (fits(level, 1, limit)) remaining = Math.min(remaining, left(level + 1, limit));
    else {
      allowed = false;
      // The level must drain to (limit - 1) for one more attempt to fit.
      waitMs = Math.max(waitMs, drainMs(level, limit - 1, limit, windowSeconds * 1000));
    }
  }
  return allowed ? { allowed, remaining, retryAfterSeconds: 0 } : { allowed, remaining: 0, retryAfterSeconds: waitSeconds(waitMs) };
}

// ---- The request budget: a rolling minute and the UTC day ----------------------------------

/** One budget as a store found it: its minute bucket's level now and its day's count. */
export interface Meter {
  level: number;
  dayUsed: number;
  limits: Limits;
}

function minuteWindow(limit: number, level: number): WindowState {
  const remaining = left(level, limit);
  // One more request becomes available when the level has drained to (limit - remaining - 1).
  const nextMs = remaining >= limit ? 0 : drainMs(level, limit - remaining - 1, limit, MINUTE_MS);
  return {
    limit, used: limit - remaining, remaining,
    resetSeconds: Math.ceil(drainMs(level, 0, limit, MINUTE_MS) / 1000 - EPSILON),
    nextSeconds: nextMs === 0 ? 0 : waitSeconds(nextMs),
  };
}

function dayWindow(limit: number, used: number, now: number): WindowState {
  const reset = secondsToUtcMidnight(now);
  return { limit, used, remaining: Math.max(0, limit - used), resetSeconds: reset, nextSeconds: used > 0 ? reset : 0 };
}

/** A budget's windows at `level` (the minute bucket) and `dayUsed`, counting nothing. */
export function budgetState(input: { now: number; level: number; dayUsed: number; limits: Limits }): BudgetState {
  return { minute: minuteWindow(input.limits.per_minute, input.level), day: dayWindow(input.limits.per_day, input.dayUsed, input.now) };
}

/** Per window, the one with fewer requests left: what the caller can actually still send. */
export function tighter(a: BudgetState, b: BudgetState | undefined): BudgetState {
  if (!b) return a;
  return { minute: b.minute.remaining < a.minute.remaining ? b.minute : a.minute, day: b.day.remaining < a.day.remaining ? b.day : a.day };
}

/** Why a budget refuses a request of `cost`, the minute first; undefined when it fits. */
function refusal(now: number, meter: Meter, cost: number): { window: 'minute' | 'day'; retryAfter: number } | undefined {
  const perMinute = meter.limits.per_minute;
  // The level must drain to (limit - cost) for the request to fit.
  if (!fits(meter.level, cost, perMinute)) return { window: 'minute', retryAfter: waitSeconds(drainMs(meter.level, perMinute - cost, perMinute, MINUTE_MS)) };
  if (meter.dayUsed + cost > meter.limits.per_day) return { window: 'day', retryAfter: secondsToUtcMidnight(now) };
  return undefined;
}

/**
 * A request (of `cost` requests) is admitted only if it fits the account's budget and, when given,
 * the key's own; a refused request is counted in neither. The answer's windows are the tighter of
 * the two, as they stand after the request.
 */
export function decide(input: { now: number; account: Meter; key?: Meter; cost?: number }): { decision: RateDecision; admitted: boolean } {
  const { now, account, key } = input;
  const cost = input.cost ?? 1;
  const byAccount = refusal(now, account, cost);
  const byKey = key ? refusal(now, key, cost) : undefined;
  if (byAccount || byKey) {
    // Refused by both: the request fits again only when both allow it, so the longer wait is the answer.
    const keyDecides = byKey !== undefined && (byAccount === undefined || byKey.retryAfter > byAccount.retryAfter);
    const why = keyDecides ? byKey! : byAccount!;
    // The refused window is the refusing budget's, so the 429's limit, its RateLimit `t` and
    // Retry-After tell one story; the other window is the tighter of the two.
    const refusing = budgetState({ now, ...(keyDecides ? key! : account) });
    const state = { ...tighter(budgetState({ now, ...account }), key && budgetState({ now, ...key })), [why.window]: refusing[why.window] };
    return { decision: { allowed: false, violated: why.window, limitedBy: keyDecides ? 'api_key' : 'account', retryAfterSeconds: why.retryAfter, ...state }, admitted: false };
  }
  return { decision: { allowed: true, violated: null, limitedBy: null, retryAfterSeconds: 0, ...tighter(spent(now, account, cost), key && spent(now, key, cost)) }, admitted: true };
}

/** A budget's windows after `cost` more (module-level: the TypeScript loader names each closure made per call, about a microsecond). */
function spent(now: number, m: Meter, cost: number): BudgetState {
  return budgetState({ now, level: m.level + cost, dayUsed: m.dayUsed + cost, limits: m.limits });
}
