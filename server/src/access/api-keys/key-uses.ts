import { isoTime } from '../../kernel/clock.js';

/** How often a key's uses are set back to its refill amount: at UTC midnight, or on the 1st of the month. */
export const REFILL_INTERVALS = ['day', 'month'] as const;
export type RefillInterval = (typeof REFILL_INTERVALS)[number];

/** The start (epoch ms) of the refill period `at` falls in. */
export function periodStart(interval: RefillInterval, at: number): number {
  const d = new Date(at);
  return interval === 'day' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The start of the next period: when an exhausted key with a refill can be used again. */
export function nextPeriodStart(interval: RefillInterval, at: number): number {
  const d = new Date(at);
  return interval === 'day' ? periodStart('day', at) + 86_400_000 : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** What the one UPDATE that spends uses compares `refilled_at` with (ISO, as stored). */
export function periodStarts(now: number): { now: string; day: string; month: string } {
  return { now: isoTime(now), day: isoTime(periodStart('day', now)), month: isoTime(periodStart('month', now)) };
}

interface UsesColumns {
  remaining: number | null;
  refill_amount: number | null;
  refill_interval: RefillInterval | null;
  refilled_at: string | null;
}

/** Uses left as of `now`, with a refill that is due applied (as the next use will apply it); null: unlimited. */
export function usesLeft(row: UsesColumns, now: number): number | null {
  if (row.remaining === null) return null;
  if (row.refill_interval !== null && row.refill_amount !== null && (row.refilled_at === null || Date.parse(row.refilled_at) < periodStart(row.refill_interval, now))) {
    return row.refill_amount;
  }
  return row.remaining;
}
