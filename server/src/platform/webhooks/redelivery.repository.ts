import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/db/schema.js';
import { MAX_REDELIVER_PER_CALL } from './webhooks.schemas.js';

/**
 * Attempts one delivery may gather through redeliveries. The retry schedule bounds a delivery's
 * attempts by itself; redelivery adds to them, so without a cap one delivery could collect
 * attempts without end (and every deliveries page lists them all).
 */
export const MAX_ATTEMPTS_PER_DELIVERY = 50;

/**
 * Sending a delivery again keeps the delivery (so its event, and the `webhook-id` receivers
 * deduplicate on) and its attempts; it is pending and due at `now`. `locked_until` is left alone:
 * a delivery being sent right now keeps its claim, so no second copy goes out beside it. The
 * retry schedule counts every attempt of the delivery, so one that used up its retries gets this
 * one attempt; one with retries left goes on with them.
 */
const reopen = (now: string) => ({ status: 'pending', next_attempt_at: now, updated_at: now });

export type RedeliverOutcome = 'redelivered' | 'not_found' | 'too_many_attempts';

export async function redeliverOne(db: Kysely<Database>, q: { orgId: string; endpointId: string; deliveryId: string; now: string }): Promise<RedeliverOutcome> {
  const r = await db.updateTable('deliveries').set(reopen(q.now))
    .where('id', '=', q.deliveryId).where('endpoint_id', '=', q.endpointId).where('org_id', '=', q.orgId)
    .where('attempts', '<', MAX_ATTEMPTS_PER_DELIVERY)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return 'redelivered';
  const exists = await db.selectFrom('deliveries').select('id')
    .where('id', '=', q.deliveryId).where('endpoint_id', '=', q.endpointId).where('org_id', '=', q.orgId).executeTakeFirst();
  return exists ? 'too_many_attempts' : 'not_found';
}

/**
 * Every failed delivery of the endpoint created at or after `since`, oldest first, at most
 * MAX_REDELIVER_PER_CALL, in one statement. The outer `status = 'failed'` re-checks each row as
 * it is updated, so two calls at once (PostgreSQL re-reads a row another transaction changed)
 * never count one delivery twice. Returns how many are pending again.
 */
export async function redeliverFailedSince(db: Kysely<Database>, q: { orgId: string; endpointId: string; since: string; now: string }): Promise<number> {
  const failed = db.selectFrom('deliveries').select('id')
    .where('org_id', '=', q.orgId).where('endpoint_id', '=', q.endpointId)
    .where('status', '=', 'failed').where('created_at', '>=', q.since)
    .where('attempts', '<', MAX_ATTEMPTS_PER_DELIVERY)
    .orderBy('id').limit(MAX_REDELIVER_PER_CALL);
  const r = await db.updateTable('deliveries').set(reopen(q.now))
    .where('id', 'in', failed).where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
