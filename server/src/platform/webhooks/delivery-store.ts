import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';

/**
 * The worker's side of the outbox. A delivery is claimed by setting `locked_until` (a lease);
 * the outcome is written only if the lease is still ours, so an instance that crashed or stalled
 * past its lease can neither lose the delivery (another instance retakes it once the lease runs
 * out) nor record a second outcome for the same attempt.
 */
export interface Claim {
  id: string;
  /** Attempts made before this one; part of the fence with `lease`. */
  attempts: number;
  lease: string;
  eventId: string;
  eventType: string;
  eventData: string;
  eventCreatedAt: string;
  url: string;
  storedSecret: string;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt` (sealed like storedSecret). */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  endpointId: string;
  endpointEnabled: boolean;
}

export type Outcome =
  | { kind: 'attempted'; status: number | null; error: string | null; durationMs: number; responseExcerpt: string | null }
  | { kind: 'endpoint_disabled' };

export function createDeliveryStore(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; retryDelays: number[]; leaseMs: number }) {
  const { db, clock, retryDelays } = deps;

  const updateDeliveries = (trx: Kysely<Database>) => trx.updateTable('deliveries');
  /** Ours only while nobody else took it over: same lease, same attempt count, still pending. */
  const fenced = (c: Claim) => (q: ReturnType<typeof updateDeliveries>) =>
    q.where('id', '=', c.id).where('status', '=', 'pending').where('attempts', '=', c.attempts).where('locked_until', '=', c.lease);

  return {
    /**
     * Atomically takes up to `limit` due deliveries. One UPDATE … WHERE id IN (due rows)
     * RETURNING: on PostgreSQL the inner select locks FOR UPDATE SKIP LOCKED, so concurrent
     * instances pick disjoint rows (and a row another instance just leased is re-checked and
     * dropped); SQLite has a single writer, so the statement is atomic by itself.
     */
    async claim(limit: number): Promise<Claim[]> {
      const nowMs = clock.now();
      const now = isoTime(nowMs);
      const lease = isoTime(nowMs + deps.leaseMs);
      let due = db.selectFrom('deliveries').select('id')
        .where('status', '=', 'pending').where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .orderBy('next_attempt_at').limit(limit);
      if (deps.dialect === 'postgres') due = due.forUpdate().skipLocked();
      const taken = await db.updateTable('deliveries').set({ locked_until: lease })
        .where('id', 'in', due)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .returning(['id', 'attempts']).execute();
      if (taken.length === 0) return [];
      const rows = await db.selectFrom('deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .select(['d.id', 'e.id as event_id', 'e.type', 'e.data', 'e.created_at', 'w.id as endpoint_id', 'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_expires_at', 'w.enabled'])
        .where('d.id', 'in', taken.map((t) => t.id)).execute();
      return rows.map((r) => ({
        id: r.id, attempts: taken.find((t) => t.id === r.id)!.attempts, lease, eventId: r.event_id, eventType: r.type, eventData: r.data,
        eventCreatedAt: r.created_at, url: r.url, storedSecret: r.secret, endpointId: r.endpoint_id, endpointEnabled: r.enabled === 1,
        previousSecret: r.previous_secret, previousSecretExpiresAt: r.previous_secret_expires_at,
      }));
    },

    /**
     * Writes one attempt and its consequence in one transaction: 2xx delivered; 410 fails it and
     * disables the endpoint (its other pending deliveries fail too); anything else schedules the
     * next try from WEBHOOK_RETRY_DELAYS, or fails after the last. False when the lease was lost.
     */
    async record(c: Claim, outcome: Outcome): Promise<boolean> {
      const nowMs = clock.now();
      const now = isoTime(nowMs);
      return db.transaction().execute(async (trx) => {
        if (outcome.kind === 'endpoint_disabled') {
          const r = await fenced(c)(updateDeliveries(trx)).set({ status: 'failed', last_error: 'endpoint disabled', next_attempt_at: null, locked_until: null, updated_at: now }).executeTakeFirst();
          return Number(r.numUpdatedRows) > 0;
        }
        const attempts = c.attempts + 1;
        const { status, error } = outcome;
        const ok = status !== null && status >= 200 && status < 300;
        const gone = status === 410;
        const delay = retryDelays[attempts - 1];
        const next = ok || gone || delay === undefined
          ? { status: ok ? 'delivered' : 'failed', next_attempt_at: null }
          : { status: 'pending', next_attempt_at: isoTime(nowMs + delay * 1000) };
        const r = await fenced(c)(updateDeliveries(trx))
          .set({ ...next, attempts, last_status_code: status, last_error: error, locked_until: null, updated_at: now })
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return false;
        await trx.insertInto('delivery_attempts').values({ id: newId('delivery'), delivery_id: c.id, attempted_at: now, status_code: status, error, duration_ms: outcome.durationMs, response_excerpt: outcome.responseExcerpt }).execute();
        if (gone) {
          await trx.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: 'The receiver answered 410 Gone.', updated_at: now }).where('id', '=', c.endpointId).execute();
          await trx.updateTable('deliveries').set({ status: 'failed', last_error: 'endpoint disabled (410 Gone)', next_attempt_at: null, locked_until: null, updated_at: now })
            .where('endpoint_id', '=', c.endpointId).where('status', '=', 'pending').execute();
        }
        return true;
      });
    },

    /** Gives a claim back untouched (our own shutdown interrupted it): due again at once. */
    async release(c: Claim): Promise<void> {
      await fenced(c)(updateDeliveries(db)).set({ locked_until: null }).execute();
    },
  };
}
export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
