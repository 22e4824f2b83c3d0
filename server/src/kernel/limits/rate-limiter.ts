import type { Limits } from '../access-terms/tiers.js';

/**
 * Per-account request budget: a rolling minute (GCRA: sustained rate and bursts both ≤ the
 * limit) and the UTC calendar day. One call checks and counts both windows atomically: a
 * request refused by either window is counted in neither.
 */
export interface WindowState {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until the window is fully replenished (minute) or the UTC day ends (day). */
  resetSeconds: number;
  /**
   * Seconds until one more request becomes available in this window (0 when none is spent): the
   * RateLimit field's `t` (draft-ietf-httpapi-ratelimit-headers: "until additional quota is made
   * available"). On a refusal it equals Retry-After: one story in every header.
   */
  nextSeconds: number;
}

/** An account's two windows as they stand. */
export interface BudgetState {
  minute: WindowState;
  day: WindowState;
}

export interface RateDecision extends BudgetState {
  allowed: boolean;
  violated: 'minute' | 'day' | null;
  /** Whose budget refused: the account's, or the API key's own (null when admitted). */
  limitedBy: 'account' | 'api_key' | null;
  /** Seconds until a request will be admitted (0 when this one was). */
  retryAfterSeconds: number;
}

/** Node-style: an error (the limiter could not decide), or the decision. */
export type DecisionCallback = (error: unknown, decision?: RateDecision) => void;

/** An API key's own budget, inside its account's (both apply). */
export interface KeyBudget {
  id: string;
  limits: Limits;
}

export interface ConsumeOptions {
  /** Requests this one counts as (POST /v1/auth/verify's `cost`); default 1. */
  cost?: number;
  /** The key's own budget: the request is admitted only if it fits both, and counted in both. */
  key?: KeyBudget;
}

export interface RateLimiter {
  /**
   * The one primitive: decide and count, answering through a callback, so limiters that need a
   * round trip (Redis) create no promise per request on the hot path.
   */
  consumeThen(accountId: string, limits: Limits, callback: DecisionCallback, options?: ConsumeOptions): void;
  /** The same as a promise (`promisedConsume` builds it from `consumeThen`). */
  consume(accountId: string, limits: Limits, options?: ConsumeOptions): Promise<RateDecision>;
  /**
   * The same, synchronously, for limiters whose state is in this process (the memory limiter).
   * Absent on limiters that need a round trip.
   */
  consumeNow?(accountId: string, limits: Limits, options?: ConsumeOptions): RateDecision;
  /** The windows now (the tighter of account and key), counting nothing (GET /v1/usage spends no budget). */
  peek(accountId: string, limits: Limits, key?: KeyBudget): Promise<BudgetState>;
  close(): Promise<void>;
}

/** `consume` for a limiter, from its `consumeThen`. */
export function promisedConsume(consumeThen: RateLimiter['consumeThen']): RateLimiter['consume'] {
  return (accountId, limits, options) =>
    new Promise((resolve, reject) => {
      consumeThen(accountId, limits, (error, decision) => (decision === undefined ? reject(error) : resolve(decision)), options);
    });
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/**
 * Shared arithmetic, so the memory and Redis implementations answer identically.
 * The minute window is a leaky bucket metered in requests (equivalent to GCRA): the bucket
 * drains at per_minute per 60 s and holds at most per_minute. Keeping the level in requests,
 * not in time, means a changed limit (tier upgrade) applies from the very next request.
 */
export interface BucketState {
  level: number; // requests in the bucket at `at`
  at: number; // epoch ms
}

/**
 * The minute bucket's level now. Never above the limit: when the limit was lowered (a downgrade,
 * a custom limit) the bucket is capped to the new size, so the wait is never longer than the
 * window, rather than the old level draining at the new, slower rate.
 */
export function drain(state: BucketState | null, now: number, perMinute: number): number {
  if (!state) return 0;
  return Math.min(perMinute, Math.max(0, state.level - (Math.max(0, now - state.at) * perMinute) / MINUTE_MS));
}

function minuteWindow(limits: Limits, perMs: number, l: number): WindowState {
  const remaining = Math.max(0, Math.floor(limits.per_minute - l + 1e-9));
  // The level must drain to (limit - remaining - 1) for one more request to fit.
  const nextMs = remaining >= limits.per_minute ? 0 : (l - (limits.per_minute - remaining - 1)) / perMs;
  return {
    limit: limits.per_minute, used: limits.per_minute - remaining, remaining,
    resetSeconds: Math.ceil(l / perMs / 1000 - 1e-9),
    nextSeconds: nextMs === 0 ? 0 : Math.max(1, Math.ceil(nextMs / 1000 - 1e-9)),
  };
}
function dayWindow(limits: Limits, dayReset: number, used: number): WindowState {
  return { limit: limits.per_day, used, remaining: Math.max(0, limits.per_day - used), resetSeconds: dayReset, nextSeconds: used > 0 ? dayReset : 0 };
}
const secondsToUtcMidnight = (now: number) => Math.ceil((DAY_MS - (now % DAY_MS)) / 1000);

/** The windows at `level` (the minute bucket) and `dayUsed`, counting nothing. */
export function budgetState(input: { now: number; level: number; dayUsed: number; limits: Limits }): BudgetState {
  const perMs = input.limits.per_minute / MINUTE_MS;
  return { minute: minuteWindow(input.limits, perMs, input.level), day: dayWindow(input.limits, secondsToUtcMidnight(input.now), input.dayUsed) };
}

/** One budget as a limiter found it: its minute bucket's level now and its day's count. */
export interface Meter {
  level: number;
  dayUsed: number;
  limits: Limits;
}

/** Per window, the one with fewer requests left: what the caller can actually still send. */
export function tighter(a: BudgetState, b: BudgetState | undefined): BudgetState {
  if (!b) return a;
  return { minute: b.minute.remaining < a.minute.remaining ? b.minute : a.minute, day: b.day.remaining < a.day.remaining ? b.day : a.day };
}

function refusal(now: number, meter: Meter, cost: number): { window: 'minute' | 'day'; retryAfter: number } | undefined {
  if (meter.level + cost > meter.limits.per_minute + 1e-9) {
    // The level must drain to (limit - cost) for the request to fit.
    const waitMs = ((meter.level + cost - meter.limits.per_minute) * MINUTE_MS) / meter.limits.per_minute;
    return { window: 'minute', retryAfter: Math.max(1, Math.ceil(waitMs / 1000 - 1e-9)) };
  }
  if (meter.dayUsed + cost > meter.limits.per_day) return { window: 'day', retryAfter: secondsToUtcMidnight(now) };
  return undefined;
}

/**
 * The one decision, shared by the memory and Redis limiters so they answer identically: the
 * request (of `cost` requests) is admitted only if it fits the account's budget and, when given,
 * the key's own. A refused request is counted in neither. The answer's windows are the tighter
 * of the two, as they stand after the request.
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
  const after = (m: Meter) => budgetState({ now, level: m.level + cost, dayUsed: m.dayUsed + cost, limits: m.limits });
  return { decision: { allowed: true, violated: null, limitedBy: null, retryAfterSeconds: 0, ...tighter(after(account), key && after(key)) }, admitted: true };
}
