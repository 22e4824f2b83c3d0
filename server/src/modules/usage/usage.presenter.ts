import type { RateDecision, WindowState } from '../limits/rate-limiter.js';
import { isTier } from '../limits/tiers.js';
import type { UserRow } from '../users/users.repository.js';

const presentWindow = (w: WindowState) => ({ used: w.used, remaining: w.remaining, reset_seconds: w.resetSeconds });

/** GET /v1/usage: the account's budget as the limiter saw it for this very request. */
export function presentUsage(account: UserRow, decision: RateDecision) {
  return {
    tier: isTier(account.tier) ? account.tier : 'free',
    limits: { per_minute: decision.minute.limit, per_day: decision.day.limit },
    minute: presentWindow(decision.minute),
    day: presentWindow(decision.day),
  };
}
