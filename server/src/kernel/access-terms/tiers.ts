import { fieldError } from '../errors.js';

/** Request budgets per subscription tier. Enterprise limits are set per account. */
export const TIERS = ['free', 'hobby', 'standard', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export interface Limits {
  per_minute: number;
  per_day: number;
}

/** A window without a limit of its own (an API key's `rate_limit` with only one of the two set). */
export const UNLIMITED = 1e15;

export const TIER_LIMITS: Record<Tier, Limits> = {
  free: { per_minute: 100, per_day: 10_000 },
  hobby: { per_minute: 100, per_day: 10_000 },
  standard: { per_minute: 1_000, per_day: 100_000 },
  pro: { per_minute: 1_000, per_day: 100_000 },
  // Until an admin negotiates custom numbers, enterprise starts at the pro budget.
  enterprise: { per_minute: 1_000, per_day: 100_000 },
};

/** Live streams (chat and event streams) an account may hold open at once, per tier. */
export const TIER_STREAMS: Record<Tier, number> = { free: 5, hobby: 5, standard: 50, pro: 50, enterprise: 50 };

/** An enterprise account's own number wins over the tier's. */
export function streamCapFor(user: { tier: string; limit_streams: number | null }): number {
  return user.limit_streams ?? TIER_STREAMS[isTier(user.tier) ? user.tier : 'free'];
}

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/** Custom per-account numbers win over the tier's defaults. */
export function limitsFor(user: { tier: string; limit_per_minute: number | null; limit_per_day: number | null }): Limits {
  const base = TIER_LIMITS[isTier(user.tier) ? user.tier : 'free'];
  return { per_minute: user.limit_per_minute ?? base.per_minute, per_day: user.limit_per_day ?? base.per_day };
}

export interface TierAndLimits {
  tier: Tier;
  limit_per_minute: number | null;
  limit_per_day: number | null;
  limit_streams: number | null;
}

/** The custom numbers an admin can set: null (or absent) keeps the tier's for that one. */
export interface CustomLimits {
  per_minute: number | null;
  per_day: number | null;
  streams?: number | null;
}

/**
 * The one rule for changing an account's tier and limits (admin API and CLI alike): custom limits
 * belong to the enterprise tier. Custom limits on another tier are refused, and a
 * move to another tier drops the custom limits the account had. `limits: null` returns to the
 * tier's defaults; a null number inside `limits` keeps that window at the default.
 */
export function changeTier(current: { tier: string; limit_per_minute: number | null; limit_per_day: number | null; limit_streams: number | null }, change: {
  tier?: Tier;
  limits?: CustomLimits | null;
}): TierAndLimits {
  const tier = change.tier ?? (isTier(current.tier) ? current.tier : 'free');
  const asked = change.limits;
  const custom = asked !== undefined && asked !== null && (asked.per_minute !== null || asked.per_day !== null || (asked.streams ?? null) !== null);
  if (custom && tier !== 'enterprise') {
    throw fieldError('/limits', 'enterprise_only', `Custom limits are for the enterprise tier; this account would be ${tier}.`);
  }
  if (tier !== 'enterprise') return { tier, limit_per_minute: null, limit_per_day: null, limit_streams: null };
  if (asked === undefined) return { tier, limit_per_minute: current.limit_per_minute, limit_per_day: current.limit_per_day, limit_streams: current.limit_streams };
  return { tier, limit_per_minute: asked?.per_minute ?? null, limit_per_day: asked?.per_day ?? null, limit_streams: asked?.streams ?? null };
}
