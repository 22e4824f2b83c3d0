/**
 * The admin area's types, and a plan (tier and custom limits) as the form edits it: the boxes →
 * the PATCH body of a user or an organization, checked lightly (the server checks again), and
 * limits as text.
 */
import type { RequestBody, Schemas } from '@gatehouse/sdk';
import { formatNumber } from '../../lib/format.ts';
import { numberBoxReader } from '../../lib/number-boxes.ts';

export type AdminUser = Schemas['AdminUser'];
export type AdminUserDetail = Schemas['AdminUserDetail'];
export type AdminOrganization = Schemas['AdminOrganization'];
export type Tier = AdminUser['tier'];
export type PlanBody = RequestBody<'adminUpdateOrganization'>;

export const TIERS: readonly Tier[] = ['free', 'hobby', 'standard', 'pro', 'enterprise'];
export const TIER_OPTIONS = TIERS.map((t) => ({ value: t, label: t.charAt(0).toUpperCase() + t.slice(1) }));
export const isTier = (value: string): value is Tier => (TIERS as readonly string[]).includes(value);

/** What a plan holds, the same for a user (their personal organization) and an organization. */
export type Plan = Pick<AdminOrganization, 'tier' | 'limits' | 'custom_limits'>;

/** The form's boxes; an empty box means the tier's own number. */
export interface PlanInputs {
  tier: Tier;
  perMinute: string;
  perDay: string;
  streams: string;
}

// The server's bounds (server/src/access/admin/admin.schemas.ts, LimitsBody).
const MAX_RATE = 2_147_483_647;
const MAX_STREAMS = 100_000;

const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

export function planInputs(plan: Plan): PlanInputs {
  const custom = plan.custom_limits;
  return { tier: plan.tier, perMinute: text(custom?.per_minute), perDay: text(custom?.per_day), streams: text(custom?.streams) };
}

/**
 * The PATCH body for these boxes, or the messages of the boxes that are wrong (keyed per_minute,
 * per_day, streams). Custom limits exist on the enterprise tier only: any other tier sends the
 * tier alone (the server then drops custom limits). On enterprise, empty boxes return to the
 * tier's defaults (`limits: null`); the server takes per minute and per day together.
 */
export function planBody(inputs: PlanInputs): { body: PlanBody | null; errors: Record<string, string> } {
  if (inputs.tier !== 'enterprise') return { body: { tier: inputs.tier }, errors: {} };
  const { read, errors } = numberBoxReader();
  const perMinute = read('per_minute', inputs.perMinute, MAX_RATE);
  const perDay = read('per_day', inputs.perDay, MAX_RATE);
  const streams = read('streams', inputs.streams, MAX_STREAMS);
  if (Object.keys(errors).length > 0) return { body: null, errors };
  if (perMinute === null && perDay === null && streams === null) return { body: { tier: 'enterprise', limits: null }, errors };
  if (perMinute === null) errors.per_minute = 'Custom limits need requests per minute and per day: fill in both, or leave all three empty.';
  if (perDay === null) errors.per_day = 'Custom limits need requests per minute and per day: fill in both, or leave all three empty.';
  if (perMinute === null || perDay === null) return { body: null, errors };
  return { body: { tier: 'enterprise', limits: { per_minute: perMinute, per_day: perDay, ...(streams !== null ? { streams } : {}) } }, errors };
}

/** "1,000 per minute, 100,000 per day, 50 live streams", and "(custom)" when an admin set them. */
export function limitsText(plan: Plan): string {
  const { per_minute, per_day, streams } = plan.limits;
  const custom = plan.custom_limits && Object.values(plan.custom_limits).some((n) => n !== null) ? ' (custom)' : '';
  return `${formatNumber(per_minute)} per minute, ${formatNumber(per_day)} per day, ${formatNumber(streams)} live streams${custom}`;
}

export const userPath = (user: Pick<AdminUser, 'id'>) => `/admin/users/${encodeURIComponent(user.id)}`;
export const organizationPath = (org: Pick<AdminOrganization, 'id'>) => `/admin/organizations/${encodeURIComponent(org.id)}`;
