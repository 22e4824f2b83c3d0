import type { Limits } from '../../core/tiers.js';

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
  /** Seconds until a request will be admitted (0 when this one was). */
  retryAfterSeconds: number;
}

/** Node-style: an error (the limiter could not decide), or the decision. */
export type DecisionCallback = (error: unknown, decision?: RateDecision) => void;

export interface RateLimiter {
  /**
   * The one primitive: decide and count, answering through a callback, so limiters that need a
   * round trip (Redis) create no promise per request on the hot path.
   */
  consumeThen(accountId: string, limits: Limits, callback: DecisionCallback): void;
  /** The same as a promise (`promisedConsume` builds it from `consumeThen`). */
  consume(accountId: string, limits: Limits): Promise<RateDecision>;
  /**
   * The same, synchronously, for limiters whose state is in this process (the memory limiter).
   * Absent on limiters that need a round trip.
   */
  consumeNow?(accountId: string, limits: Limits): RateDecision;
  /** The account's windows now, without counting anything (GET /v1/usage spends no budget). */
  peek(accountId: string, limits: Limits): Promise<BudgetState>;
  close(): Promise<void>;
}

/** `consume` for a limiter, from its `consumeThen`. */
export function promisedConsume(consumeThen: RateLimiter['consumeThen']): RateLimiter['consume'] {
  return (accountId, limits) =>
    new Promise((resolve, reject) => {
      consumeThen(accountId, limits, (error, decision) => (decision === undefined ? reject(error) : resolve(decision)));
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

export function decide(input: { now: number; level: number; dayUsed: number; limits: Limits }): { decision: RateDecision; admitted: boolean } {
  const { now, level, limits } = input;
  if (level + 1 > limits.per_minute + 1e-9) {
    const state = budgetState(input);
    return { decision: { allowed: false, violated: 'minute', retryAfterSeconds: state.minute.nextSeconds, ...state }, admitted: false };
  }
  if (input.dayUsed >= limits.per_day) {
    const state = budgetState(input);
    return { decision: { allowed: false, violated: 'day', retryAfterSeconds: secondsToUtcMidnight(now), ...state }, admitted: false };
  }
  return { decision: { allowed: true, violated: null, retryAfterSeconds: 0, ...budgetState({ now, level: level + 1, dayUsed: input.dayUsed + 1, limits }) }, admitted: true };
}
