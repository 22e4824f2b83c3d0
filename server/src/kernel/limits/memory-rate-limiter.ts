import { budgetState, DAY_MS, decide, drain, tighter, type BucketState, type ConsumeOptions, type KeyBudget, type Meter, type RateDecision, type RateLimiter } from './rate-limiter.js';
import type { Limits } from '../access-terms/tiers.js';

type Budget = BucketState & { day: number; dayUsed: number };

/** Embedded default: exact within one process (Node runs it on one thread). */
export function createMemoryRateLimiter(now: () => number = Date.now, maxAccounts = 200_000): RateLimiter {
  // Accounts by id; API keys with a budget of their own under `key:<id>`.
  const state = new Map<string, Budget>();
  const sweep = setInterval(() => {
    const today = Math.floor(now() / DAY_MS);
    // A bucket idle for a minute is empty; yesterday's count no longer matters.
    for (const [key, s] of state) if (now() - s.at > 60_000 && s.day !== today) state.delete(key);
  }, 60_000);
  sweep.unref();

  function meter(s: Budget | undefined, t: number, today: number, limits: Limits): Meter {
    return { level: drain(s ?? null, t, limits.per_minute), dayUsed: s && s.day === today ? s.dayUsed : 0, limits };
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
    if (state.size >= maxAccounts) state.delete(state.keys().next().value as string);
    state.set(id, { level: m.level + cost, at: t, day: today, dayUsed: m.dayUsed + cost });
  }

  function consumeNow(accountId: string, limits: Limits, options?: ConsumeOptions): RateDecision {
    const t = now();
    const today = Math.floor(t / DAY_MS);
    const cost = options?.cost ?? 1;
    const s = state.get(accountId);
    const account = meter(s, t, today, limits);
    if (options?.key === undefined) {
      const { decision, admitted } = decide({ now: t, account, cost });
      if (admitted) spend(accountId, s, account, t, today, cost);
      return decision;
    }
    const keyId = `key:${options.key.id}`;
    const k = state.get(keyId);
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
    const m = meter(state.get(id), t, Math.floor(t / DAY_MS), limits);
    return budgetState({ now: t, ...m });
  }

  return {
    consumeNow,
    consumeThen: (accountId, limits, callback, options) => callback(null, consumeNow(accountId, limits, options)),
    consume: async (accountId, limits, options) => consumeNow(accountId, limits, options),
    peek: async (accountId, limits, key?: KeyBudget) => tighter(peekNow(accountId, limits), key && peekNow(`key:${key.id}`, key.limits)),
    close: async () => clearInterval(sweep),
  };
}
