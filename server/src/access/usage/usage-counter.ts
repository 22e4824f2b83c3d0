import { isoTime, type Clock } from '../../kernel/clock.js';
import { bucketOf, HOUR_MS } from './usage-buckets.js';
import type { UsageCountRow, UsageHistoryRepository } from './usage-history.repository.js';

/**
 * What became of an authenticated request whose account is known: admitted (ok), refused by the
 * budget or a key's uses (rate_limited), refused with a 401 (unauthorized: an expired key, an old
 * secret past its grace, a revoked session) or a 403 (forbidden: scope, session required, account
 * disabled, admin).
 */
export type UsageOutcome = 'ok' | 'rate_limited' | 'unauthorized' | 'forbidden';
export const USAGE_OUTCOMES = ['ok', 'rate_limited', 'unauthorized', 'forbidden'] as const satisfies readonly UsageOutcome[];

export interface UsageCounter {
  /** Counts one request in memory (no I/O): of an API key (`keyId`) or of a session (null). */
  record(orgId: string, keyId: string | null, outcome: UsageOutcome): void;
  /**
   * Adds everything counted so far to the database, one flush at a time (a call during a flush
   * waits for it and then flushes what came after). Rejects when the write failed; the counts are
   * then kept for the next flush.
   */
  flush(): Promise<void>;
  /** Stops the timer and flushes a last time (a failure is reported to onError). */
  close(): Promise<void>;
}

type Counts = Record<UsageOutcome, number>;
/** orgId → keyId ('' for a session) → counts. */
type HourCounts = Map<string, Map<string, Counts>>;

const zero = (): Counts => ({ ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 });

/**
 * The usage history's counter: every authenticated request is counted in memory, by the UTC hour
 * it was made in (taken when it is counted, so a flush that runs late after the hour changed does
 * not move counts into the next), account and key, and every `flushMs` the counts are added to
 * `usage_counts` in one transaction: per key its hour and day rows, per account its total's hour
 * and day rows (key_id ''). The write adds to the stored rows (INSERT … ON CONFLICT DO UPDATE
 * SET n = n + excluded.n), so many instances on one database count correctly without Redis.
 * A failed flush puts its counts back; nothing is lost but what a crash takes with it (at most
 * one interval's counts).
 */
export function createUsageCounter(deps: {
  repo: Pick<UsageHistoryRepository, 'add'>;
  clock: Clock;
  flushMs: number;
  onError: (error: unknown) => void;
}): UsageCounter {
  const { repo, clock } = deps;
  let pending = new Map<number, HourCounts>();
  // The hour last counted into and its map: nearly every record() finds its hour here.
  let currentHour = -1;
  let current: HourCounts | undefined;

  function hourCounts(hour: number): HourCounts {
    let counts = pending.get(hour);
    if (counts === undefined) {
      counts = new Map();
      pending.set(hour, counts);
    }
    return counts;
  }

  function countsOf(hour: HourCounts, orgId: string, keyId: string): Counts {
    let byKey = hour.get(orgId);
    if (byKey === undefined) {
      byKey = new Map();
      hour.set(orgId, byKey);
    }
    let counts = byKey.get(keyId);
    if (counts === undefined) {
      counts = zero();
      byKey.set(keyId, counts);
    }
    return counts;
  }

  function record(orgId: string, keyId: string | null, outcome: UsageOutcome): void {
    const hour = Math.floor(clock.now() / HOUR_MS);
    if (hour !== currentHour || current === undefined) {
      current = hourCounts(hour);
      currentHour = hour;
    }
    countsOf(current, orgId, keyId ?? '')[outcome]++;
  }

  /** The rows a batch adds to: summed per primary key (a key appears once per statement). */
  function rowsOf(batch: Map<number, HourCounts>): UsageCountRow[] {
    const rows = new Map<string, UsageCountRow>();
    const add = (orgId: string, keyId: string, granularity: 'hour' | 'day', start: string, counts: Counts) => {
      const id = `${orgId} ${keyId} ${granularity} ${start}`;
      let row = rows.get(id);
      if (row === undefined) {
        row = { org_id: orgId, key_id: keyId, granularity, bucket_start: start, ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 };
        rows.set(id, row);
      }
      row.ok += counts.ok;
      row.rate_limited += counts.rate_limited;
      row.unauthorized += counts.unauthorized;
      row.forbidden += counts.forbidden;
    };
    for (const [hour, orgs] of batch) {
      const hourStart = isoTime(hour * HOUR_MS);
      const dayStart = isoTime(bucketOf(hour * HOUR_MS, 'day'));
      for (const [orgId, keys] of orgs) {
        for (const [keyId, counts] of keys) {
          if (keyId !== '') {
            add(orgId, keyId, 'hour', hourStart, counts);
            add(orgId, keyId, 'day', dayStart, counts);
          }
          add(orgId, '', 'hour', hourStart, counts);
          add(orgId, '', 'day', dayStart, counts);
        }
      }
    }
    return [...rows.values()];
  }

  /** A failed batch goes back into what is pending (which may have grown meanwhile). */
  function putBack(batch: Map<number, HourCounts>): void {
    for (const [hour, orgs] of batch) {
      const into = hourCounts(hour);
      for (const [orgId, keys] of orgs) {
        for (const [keyId, counts] of keys) {
          const target = countsOf(into, orgId, keyId);
          target.ok += counts.ok;
          target.rate_limited += counts.rate_limited;
          target.unauthorized += counts.unauthorized;
          target.forbidden += counts.forbidden;
        }
      }
    }
  }

  async function flushOnce(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    currentHour = -1;
    current = undefined;
    try {
      await repo.add(rowsOf(batch));
    } catch (error) {
      putBack(batch);
      throw error;
    }
  }

  // One flush at a time: each takes its own batch, so none writes a count twice, and two
  // transactions on the same rows would only wait for each other. A call while one runs gets the
  // next flush, which starts when that one ends: what was counted before the call is then written.
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  function flush(): Promise<void> {
    if (running === undefined) {
      running = flushOnce().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running.catch(() => {}).then(() => {
      queued = undefined;
      return flush();
    });
    return queued;
  }

  const timer = setInterval(() => void flush().catch(deps.onError), deps.flushMs);
  timer.unref();

  return {
    record,
    flush,
    async close() {
      clearInterval(timer);
      await flush().catch(deps.onError);
    },
  };
}

