import type { ApiKey } from './api.ts';
import { numberBoxReader } from './number-boxes.ts';

/** The key's own limits as typed in the form: empty means none. */
export interface LimitInputs {
  perMinute: string;
  perDay: string;
  uses: string;
  refillAmount: string;
  refillInterval: 'day' | 'month';
}

export const NO_LIMITS: LimitInputs = { perMinute: '', perDay: '', uses: '', refillAmount: '', refillInterval: 'month' };

export interface LimitsBody {
  rate_limit?: { per_minute: number | null; per_day: number | null };
  remaining?: number;
  refill?: { amount: number; interval: 'day' | 'month' };
}

// The server's bounds (server/src/access/api-keys/api-keys.routes.ts); it checks them again.
const MAX_PER_MINUTE = 1_000_000;
const MAX_PER_DAY = 1_000_000_000;
const MAX_USES = 1_000_000_000;

/**
 * The limits part of a create (or update) body, and the messages of the fields that are not
 * numbers the server would take (keyed like the fields: per_minute, per_day, remaining, refill).
 */
export function limitsBody(inputs: LimitInputs): { body: LimitsBody; errors: Record<string, string> } {
  const { read, errors } = numberBoxReader();
  const perMinute = read('per_minute', inputs.perMinute, MAX_PER_MINUTE);
  const perDay = read('per_day', inputs.perDay, MAX_PER_DAY);
  const uses = read('remaining', inputs.uses, MAX_USES);
  const refill = read('refill', inputs.refillAmount, MAX_USES);
  const body: LimitsBody = {};
  if (perMinute !== null || perDay !== null) body.rate_limit = { per_minute: perMinute, per_day: perDay };
  if (uses !== null) body.remaining = uses;
  if (refill !== null) body.refill = { amount: refill, interval: inputs.refillInterval };
  return { body, errors };
}

export function isExpired(key: Pick<ApiKey, 'expires_at'>): boolean {
  return key.expires_at !== null && new Date(key.expires_at).getTime() <= Date.now();
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** "5 per minute · 1,000 per day", or null when only the account's limits apply. */
export function rateLimitText(key: Pick<ApiKey, 'rate_limit'>): string | null {
  const { per_minute: minute = null, per_day: day = null } = key.rate_limit ?? {};
  const parts = [minute !== null && `${minute.toLocaleString()} per minute`, day !== null && `${day.toLocaleString()} per day`].filter(Boolean);
  return parts.length ? parts.join(' · ') : null;
}

/** "3 uses left", or null when the key's uses are unlimited. */
export function usesText(key: Pick<ApiKey, 'remaining'>): string | null {
  return key.remaining === null ? null : `${plural(key.remaining, 'use', 'uses')} left`;
}

/** "refilled to 100 each day (UTC)", or null without a refill. */
export function refillText(key: Pick<ApiKey, 'refill'>): string | null {
  if (!key.refill) return null;
  return `refilled to ${key.refill.amount.toLocaleString()} ${key.refill.interval === 'day' ? 'each day' : 'on the 1st of each month'} (UTC)`;
}
