/**
 * The buckets of the usage history: UTC hours and UTC days (epoch milliseconds divide evenly into
 * both, so a bucket's start is a floor). How far back each is kept and may be asked for, and how
 * many buckets a history shows by default, are stated once here for the counter, the reads and
 * retention.
 */
export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const BUCKET_MS: Record<Granularity, number> = { hour: HOUR_MS, day: DAY_MS };

/** The most buckets one history holds, which is also how far back it reaches: 7 days of hours, 90 days. */
export const MAX_BUCKETS: Record<Granularity, number> = { hour: 168, day: 90 };
/** Without `from`: the last 24 hours, the last 30 days (the current bucket included). */
export const DEFAULT_BUCKETS: Record<Granularity, number> = { hour: 24, day: 30 };

/** The start of the bucket holding `epochMs`. */
export function bucketOf(epochMs: number, granularity: Granularity): number {
  const size = BUCKET_MS[granularity];
  return Math.floor(epochMs / size) * size;
}

/** The oldest bucket a history may show at `now` (retention keeps it): MAX_BUCKETS back, the current one included. */
export function oldestBucket(now: number, granularity: Granularity): number {
  return bucketOf(now, granularity) - (MAX_BUCKETS[granularity] - 1) * BUCKET_MS[granularity];
}
