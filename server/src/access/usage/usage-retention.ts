import { isoTime, type Clock } from '../../kernel/clock.js';
import { GRANULARITIES, oldestBucket } from './usage-buckets.js';
import type { UsageHistoryRepository } from './usage-history.repository.js';
import { periodicTask } from '../../kernel/periodic-task.js';

const PRUNE_EVERY_MS = 3600_000;

/**
 * Prunes the usage history hourly: hour buckets older than 7 days and day buckets older than 90
 * (older than the oldest bucket a history may show, usage-buckets.ts). Running on every instance
 * is harmless: the delete is idempotent.
 */
export function createUsageRetention(deps: { repo: Pick<UsageHistoryRepository, 'prune'>; clock: Clock; onError: (e: unknown) => void }) {
  const { repo, clock } = deps;
  async function pruneOnce(): Promise<number> {
    const now = clock.now();
    let pruned = 0;
    for (const granularity of GRANULARITIES) pruned += await repo.prune(granularity, isoTime(oldestBucket(now, granularity)));
    return pruned;
  }
  return { pruneOnce, ...periodicTask(pruneOnce, PRUNE_EVERY_MS, deps.onError) };
}
