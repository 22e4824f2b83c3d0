import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import { periodicTask } from '../periodic-task.js';

/** Long enough to answer "what did you send us last month?"; short enough that the outbox stays small. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/**
 * Prunes the outbox: events older than the retention window whose deliveries are all finished
 * (delivered or failed). Deliveries and their attempts go with them (ON DELETE CASCADE). An
 * event with a delivery still pending is kept, however old, so nothing is lost that could still
 * be sent. Running on every instance is harmless: the delete is idempotent.
 */
export function createEventRetention(deps: { db: Kysely<Database>; clock: Clock; onError: (e: unknown) => void }) {
  const { db, clock } = deps;
  async function pruneOnce(): Promise<number> {
    const cutoff = isoTime(clock.now() - EVENT_RETENTION_MS);
    const result = await db
      .deleteFrom('events')
      .where('created_at', '<', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries').select('deliveries.id').whereRef('deliveries.event_id', '=', 'events.id').where('deliveries.status', '=', 'pending'))),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
  return { pruneOnce, ...periodicTask(pruneOnce, PRUNE_EVERY_MS, deps.onError) };
}
