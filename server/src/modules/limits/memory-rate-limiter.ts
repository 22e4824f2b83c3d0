import { budgetState, DAY_MS, decide, drain, type BucketState, type RateDecision, type RateLimiter } from './rate-limiter.js';
import type { Limits } from '../../core/tiers.js';

/** Embedded default: exact within one process (Node runs it on one thread). */
export function createMemoryRateLimiter(now: () => number = Date.now, maxAccounts = 200_000): RateLimiter {
  const state = new Map<string, BucketState & { day: number; dayUsed: number }>();
  const sweep = setInterval(() => {
    const today = Math.floor(now() / DAY_MS);
    // A bucket idle for a minute is empty; yesterday's count no longer matters.
    for (const [key, s] of state) if (now() - s.at > 60_000 && s.day !== today) state.delete(key);
  }, 60_000);
  sweep.unref();

  function consumeNow(accountId: string, limits: Limits): RateDecision {
    const t = now();
    const today = Math.floor(t / DAY_MS);
    const s = state.get(accountId);
    const level = drain(s ?? null, t, limits.per_minute);
    const dayUsed = s && s.day === today ? s.dayUsed : 0;
    const { decision, admitted } = decide({ now: t, level, dayUsed, limits });
    if (admitted) {
      if (s) {
        // Updated in place: no allocation and no Map write for an account seen before.
        s.level = level + 1;
        s.at = t;
        s.day = today;
        s.dayUsed = dayUsed + 1;
      } else {
        if (state.size >= maxAccounts) state.delete(state.keys().next().value as string);
        state.set(accountId, { level: level + 1, at: t, day: today, dayUsed: dayUsed + 1 });
      }
    }
    return decision;
  }

  return {
    consumeNow,
    consumeThen: (accountId, limits, callback) => callback(null, consumeNow(accountId, limits)),
    consume: async (accountId, limits) => consumeNow(accountId, limits),
    peek: async (accountId, limits) => {
      const t = now();
      const s = state.get(accountId);
      return budgetState({ now: t, level: drain(s ?? null, t, limits.per_minute), dayUsed: s && s.day === Math.floor(t / DAY_MS) ? s.dayUsed : 0, limits });
    },
    close: async () => clearInterval(sweep),
  };
}
