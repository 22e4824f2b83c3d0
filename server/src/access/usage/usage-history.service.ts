import { AppError, fieldError } from '../../kernel/errors.js';
import { isId } from '../../kernel/ids.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { BUCKET_MS, bucketOf, DEFAULT_BUCKETS, MAX_BUCKETS, oldestBucket, type Granularity } from './usage-buckets.js';
import type { UsageCounter } from './usage-counter.js';
import type { UsageHistoryRepository } from './usage-history.repository.js';

export interface UsageHistoryQuery {
  granularity?: Granularity;
  key_id?: string;
  /** RFC 3339 date-times (the route's schema checked the format). */
  from?: string;
  to?: string;
}

export interface UsageBucket {
  start: string;
  ok: number;
  rate_limited: number;
  unauthorized: number;
  forbidden: number;
}

export interface UsageHistory {
  granularity: Granularity;
  key_id: string | null;
  /** The first bucket's start and the last bucket's start. */
  from: string;
  to: string;
  data: UsageBucket[];
}

function parseTime(field: 'from' | 'to', value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new AppError('validation_failed', `${field} is not a valid date-time.`, { errors: [{ field: `query:/${field}`, code: 'invalid_format', message: `${field} must be an RFC 3339 date-time.` }] });
  return ms;
}

/**
 * The buckets a query asks for, as bucket starts: `from` and `to` truncated to their bucket, `to`
 * no later than the current bucket; without `from`, the DEFAULT_BUCKETS up to `to` (no further back
 * than retention); without `to`, up to the current bucket. A bucket older than retention, or a
 * range that runs backwards or starts in the future, is a 400 field error.
 */
export function resolveRange(query: UsageHistoryQuery, granularity: Granularity, now: number): { from: number; to: number } {
  const step = BUCKET_MS[granularity];
  const current = bucketOf(now, granularity);
  const oldest = oldestBucket(now, granularity);
  const beyond = (field: 'from' | 'to') =>
    fieldError(`query:/${field}`, 'beyond_retention', `${granularity === 'hour' ? 'Hourly' : 'Daily'} usage goes back ${MAX_BUCKETS[granularity]} ${granularity}s, to ${isoTime(oldest)}.`);
  const askedTo = query.to === undefined ? undefined : bucketOf(parseTime('to', query.to), granularity);
  const askedFrom = query.from === undefined ? undefined : bucketOf(parseTime('from', query.from), granularity);
  if (askedFrom !== undefined && askedFrom > current) throw fieldError('query:/from', 'in_future', 'from is later than now.');
  if (askedFrom !== undefined && askedFrom < oldest) throw beyond('from');
  if (askedTo !== undefined && askedTo < oldest) throw beyond('to');
  if (askedFrom !== undefined && askedTo !== undefined && askedTo < askedFrom) throw fieldError('query:/to', 'before_from', 'to is earlier than from.');
  const to = askedTo === undefined ? current : Math.min(askedTo, current);
  const from = askedFrom ?? Math.max(to - (DEFAULT_BUCKETS[granularity] - 1) * step, oldest);
  return { from, to };
}

/**
 * GET /v1/usage/history: an account's requests (or one key's) per UTC hour or day by outcome, a
 * row for every bucket of the range, oldest first. This instance's pending counts are written
 * first, so callers see their own latest requests; other instances' arrive within their flush
 * interval.
 */
export function createUsageHistoryService(deps: {
  repo: Pick<UsageHistoryRepository, 'read' | 'keyBelongsTo'>;
  counter: Pick<UsageCounter, 'flush'>;
  clock: Clock;
  onError: (error: unknown) => void;
}) {
  const { repo, counter, clock } = deps;
  return {
    async history(orgId: string, query: UsageHistoryQuery): Promise<UsageHistory> {
      const granularity = query.granularity ?? 'hour';
      const { from, to } = resolveRange(query, granularity, clock.now());
      const keyId = query.key_id ?? null;
      if (keyId !== null && (!isId('apiKey', keyId) || !(await repo.keyBelongsTo(orgId, keyId)))) {
        throw new AppError('not_found', 'No API key with this id.');
      }
      // A failed flush keeps its counts for the next; the stored history is still worth showing.
      await counter.flush().catch(deps.onError);
      const stored = await repo.read(orgId, keyId ?? '', granularity, isoTime(from), isoTime(to));
      const byStart = new Map(stored.map((row) => [row.bucket_start, row]));
      const data: UsageBucket[] = [];
      for (let start = from; start <= to; start += BUCKET_MS[granularity]) {
        const iso = isoTime(start);
        const row = byStart.get(iso);
        data.push(row
          ? { start: iso, ok: row.ok, rate_limited: row.rate_limited, unauthorized: row.unauthorized, forbidden: row.forbidden }
          : { start: iso, ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 });
      }
      return { granularity, key_id: keyId, from: isoTime(from), to: isoTime(to), data };
    },
  };
}
export type UsageHistoryService = ReturnType<typeof createUsageHistoryService>;
