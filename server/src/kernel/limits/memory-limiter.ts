import type { Limits } from '../access-terms/tiers.js';
import type { AttemptBucket, ConsumeOptions, KeyBudget, Limiter, LimitDecision, RateDecision } from './limiter.js';
import { budgetState, DAY_MS, decide, decideTake, drain, MINUTE_MS, tighter, type Bucket, type Meter } from './windows.js';

/** A request budget: its minute bucket and the count of its UTC day (number `day` since the epoch). */
type Budget = Bucket & { day: number; dayUsed: number };
/** An attempt bucket, and when it will be empty (the sweep forgets it then). */
type Attempts = Bucket & { emptyAt: number };

/**
 * The embedded store: exact within one process (Node runs it on one thread, and every decision is
 * synchronous, so nothing interleaves without any lock). Bounded: past its size, the oldest entry
 * is dropped.
 */
export function createMemoryLimiter(now: () => number = Date.now, max = { budgets: 200_000, attempts: 100_000 }): Limiter {
  // Accounts by id; API keys with a budget of their own under `key:<id>`.
  const budgets = new Map<string, Budget>();
  const attempts = new Map<string, Attempts>();
  const sweep = setInterval(() => {
    const t = now();
    const today = Math.floor(t / DAY_MS);
    // A minute bucket idle for a minute is empty; yesterday's count no longer matters.
    for (const [id, s] of budgets) if (t - s.at > MINUTE_MS && s.day !== today) budgets.delete(id);
    for (const [key, s] of attempts) if (s.emptyAt <= t) attempts.delete(key);
  }, 60_000);
  sweep.unref();

  function meter(s: Budget | undefined, t: number, today: number, limits: Limits): Meter {
    return { level: drain(s, t, limits.per_minute, MINUTE_MS), dayUsed: s && s.day === today ? s.dayUsed : 0, limits };
  }

  function spend(id: string, s: Budget | undefined, m: Meter, t: number, today: number, cost: number): void {
    if (s) {
      // Updated in place: no allocation and no Map write for a budget seen before.
      s.level = m.level + cost;
      s.at = t;
      s.day = today;
      s.dayUsed = m.dayUsed + cost;
      return;
    }
    if (budgets.size >= max.budgets) budgets.delete(budgets.keys().next().value as string);
    budgets.set(id, { level: m.level + cost, at: t, day: today, dayUsed: m.dayUsed + cost });
  }

  function consumeNow(accountId: string, limits: Limits, options?: ConsumeOptions): RateDecision {
    const t = now();
    const today = Math.floor(t / DAY_MS);
    const cost = options?.cost ?? 1;
    const s = budgets.get(accountId);
    const account = meter(s, t, today, limits);
    if (options?.key === undefined) {
      const { decision, admitted } = decide({ now: t, account, cost });
      if (admitted) spend(accountId, s, account, t, today, cost);
      return decision;
    }
    const keyId = `key:${options.key.id}`;
    const k = budgets.get(keyId);
    const key = meter(k, t, today, options.key.limits);
    const { decision, admitted } = decide({ now: t, account, key, cost });
    if (admitted) {
      spend(accountId, s, account, t, today, cost);
      spend(keyId, k, key, t, today, cost);
    }
    return decision;
  }

  function peekNow(id: string, limits: Limits) {
    const t = now();
    return budgetState({ now: t, ...meter(budgets.get(id), t, Math.floor(t / DAY_MS), limits) });
  }

  /** Sets a bucket's level at `t` (in place when known), or forgets it once empty. */
  function setLevel(b: AttemptBucket, s: Attempts | undefined, level: number, t: number): void {
    if (level <= 0) return void attempts.delete(b.key);
    const emptyAt = t + (level * b.windowSeconds * 1000) / b.limit;
    if (s) {
      s.level = level;
      s.at = t;
      s.emptyAt = emptyAt;
      return;
    }
    if (attempts.size >= max.attempts) attempts.delete(attempts.keys().next().value as string);
    attempts.set(b.key, { level, at: t, emptyAt });
  }

  // Scratch for every take (a take here is synchronous, so two never overlap): the account routes
  // take on every request to them, and arrays of their own were most of a take's allocation.
  const found: (Attempts | undefined)[] = [];
  const levels: number[] = [];
  function takeNow(buckets: readonly AttemptBucket[]): LimitDecision {
    const t = now();
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      found[i] = attempts.get(b.key);
      levels[i] = drain(found[i], t, b.limit, b.windowSeconds * 1000);
    }
    const decision = decideTake(buckets, levels);
    if (decision.allowed) for (let i = 0; i < buckets.length; i++) setLevel(buckets[i]!, found[i], levels[i]! + 1, t);
    return decision;
  }

  function giveBackNow(buckets: readonly AttemptBucket[]): void {
    const t = now();
    for (const b of buckets) {
      const s = attempts.get(b.key);
      if (s) setLevel(b, s, drain(s, t, b.limit, b.windowSeconds * 1000) - 1, t);
    }
  }

  return {
    consume: consumeNow,
    peek: async (accountId, limits, key?: KeyBudget) => tighter(peekNow(accountId, limits), key && peekNow(`key:${key.id}`, key.limits)),
    take: takeNow,
    giveBack: async (buckets) => giveBackNow(buckets),
    reset: async (key) => void attempts.delete(key),
    close: async () => clearInterval(sweep),
  };
}
