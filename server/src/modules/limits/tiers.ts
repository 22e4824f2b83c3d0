/** Request budgets per subscription tier (API.md §5). Enterprise limits are set per account. */
export const TIERS = ['free', 'hobby', 'standard', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export interface Limits {
  per_minute: number;
  per_day: number;
}

export const TIER_LIMITS: Record<Tier, Limits> = {
  free: { per_minute: 100, per_day: 10_000 },
  hobby: { per_minute: 100, per_day: 10_000 },
  standard: { per_minute: 1_000, per_day: 100_000 },
  pro: { per_minute: 1_000, per_day: 100_000 },
  // Until an admin negotiates custom numbers, enterprise starts at the pro budget.
  enterprise: { per_minute: 1_000, per_day: 100_000 },
};

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/** Custom per-account numbers win over the tier's defaults. */
export function limitsFor(user: { tier: string; limit_per_minute: number | null; limit_per_day: number | null }): Limits {
  const base = TIER_LIMITS[isTier(user.tier) ? user.tier : 'free'];
  return { per_minute: user.limit_per_minute ?? base.per_minute, per_day: user.limit_per_day ?? base.per_day };
}
