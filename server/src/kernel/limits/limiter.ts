import type { Limits } from '../access-terms/tiers.js';
import type { Eventually } from '../eager.js';

/**
 * Every limit Gatehouse enforces is one or more windows counted in one store: this process's
 * memory (memory-limiter.ts), Redis shared by every instance (redis-limiter.ts), or Redis with
 * this process's memory while Redis fails (fallback-limiter.ts). The windows' arithmetic is
 * windows.ts, shared by the stores so they answer alike; test/contracts/limiter.contract.ts holds
 * each store to it. A store serves two kinds of callers:
 *
 * - the request budget (RateLimiter), spent by every authenticated request: a rolling minute and
 *   the UTC calendar day, per account (or per API key with a budget of its own, inside its
 *   account's), a request costing one or more;
 * - attempt buckets (AttemptLimiter), for abuse control: failed logins (per email and per IP),
 *   current-password checks, mails sent, the public and the account routes; one rolling window of
 *   any length per key.
 *
 * A decision over several windows is atomic: admitted only if it fits all of them, and then
 * counted in all of them; refused, it is counted in none. Nothing else interleaves, so no number
 * of concurrent callers gets more than the limit.
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

/** A budget's two windows as they stand. */
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

/** `limit` attempts per rolling `windowSeconds` under `key`. */
export interface AttemptBucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** Attempts left in the fullest bucket after this one. */
  remaining: number;
  /** Seconds until every bucket would admit one more attempt (0 when allowed). */
  retryAfterSeconds: number;
}


/** The request budget. */
export interface RateLimiter {
  /**
   * Decides and counts: at once on the store whose state is in this process (memory), after the
   * round trip on Redis. A store that cannot decide rejects (or throws).
   */
  consume(accountId: string, limits: Limits, options?: ConsumeOptions): Eventually<RateDecision>;
  /** The windows now (the tighter of account and key), counting nothing (GET /v1/usage spends no budget). */
  peek(accountId: string, limits: Limits, key?: KeyBudget): Promise<BudgetState>;
}

/**
 * Attempt buckets. An attempt is taken BEFORE the work it guards (a password hash check, say) and
 * given back when the work succeeded: checking first and counting afterwards would let every
 * request of a concurrent burst pass the check before any of them was counted.
 */
export interface AttemptLimiter {
  /**
   * Takes one attempt from every bucket: at once in memory (the account routes' abuse limit runs
   * on every request to them), after the round trip on Redis.
   */
  take(buckets: readonly AttemptBucket[]): Eventually<LimitDecision>;
  /** Gives back one attempt to each bucket (the guarded work succeeded); never below empty. */
  giveBack(buckets: readonly AttemptBucket[]): Promise<void>;
  /** Forgets a bucket entirely (a password reset clears the failed logins of its account). */
  reset(key: string): Promise<void>;
}

/** A store: both kinds of limits, in one place. */
export interface Limiter extends RateLimiter, AttemptLimiter {
  close(): Promise<void>;
}

