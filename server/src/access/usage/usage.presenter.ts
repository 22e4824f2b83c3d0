import type { BudgetState, WindowState } from '../../kernel/limits/limiter.js';
import { isTier } from '../../kernel/access-terms/tiers.js';
import type { OrganizationRow } from '../organizations/organizations.repository.js';

const presentWindow = (w: WindowState) => ({ used: w.used, remaining: w.remaining, reset_seconds: w.resetSeconds });

/** GET /v1/usage: the organization's budget as the limiter sees it now. */
export function presentUsage(org: OrganizationRow, budget: BudgetState) {
  return {
    tier: isTier(org.tier) ? org.tier : 'free',
    limits: { per_minute: budget.minute.limit, per_day: budget.day.limit },
    minute: presentWindow(budget.minute),
    day: presentWindow(budget.day),
  };
}
