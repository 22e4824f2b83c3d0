import type { Kysely, Selectable } from 'kysely';
import { AppError, fieldError, tooManyAttempts } from '../../kernel/errors.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database, WebhookEndpointsTable } from '../../kernel/db/schema.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import { EVENT_RETENTION_MS } from '../../kernel/events/event-retention.js';
import { recordAudit, type AuditActor } from '../../access/index.js';
import { listDeliveries } from './deliveries.repository.js';
import { MAX_ATTEMPTS_PER_DELIVERY, redeliverFailedSince, redeliverOne } from './redelivery.repository.js';
import { newWebhookSecret, sealWebhookSecret } from './webhook-secret.js';

type EndpointRow = Selectable<WebhookEndpointsTable>;

/**
 * What an operator runs on an endpoint besides editing it: send deliveries again, rotate the
 * signing secret. Every query is scoped by org_id, so another organization's ids answer 404.
 */
export interface WebhookOperationsDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** GATEHOUSE_SECRET: seals endpoint secrets at rest when set. */
  secret: string | undefined;
  /** Wakes this instance's delivery worker (others find the rows at their next poll). */
  wakeWorker(): void;
  attempts: AttemptLimiter;
  find(q: Kysely<Database>, orgId: string, id: string): Promise<EndpointRow | undefined>;
}

/**
 * Bulk redeliveries that queued something, per endpoint and hour. One call queues up to
 * MAX_REDELIVER_PER_CALL deliveries, all due at once on the instances' shared workers: without a
 * bound, one organization could keep them busy for everyone. Calls that found nothing are free.
 */
export const BULK_REDELIVERIES_PER_HOUR = 20;

const endpointNotFound = () => new AppError('not_found', 'No webhook endpoint with this id.');

export function createWebhookOperations(deps: WebhookOperationsDeps) {
  const { db, clock } = deps;

  /** The endpoint, which must exist and be enabled: a disabled one would fail every delivery at once. */
  async function enabledEndpoint(orgId: string, id: string): Promise<EndpointRow> {
    const row = await deps.find(db, orgId, id);
    if (!row) throw endpointNotFound();
    if (row.enabled !== 1) throw new AppError('conflict', 'This endpoint is disabled; enable it (PATCH enabled: true) before redelivering.');
    return row;
  }

  const audit = (trx: Kysely<Database>, actor: AuditActor, endpointId: string, detail: Record<string, unknown>) =>
    recordAudit(trx, clock, { orgId: actor.orgId, actor: { userId: actor.userId, keyId: actor.keyId }, action: 'webhook.redelivered', targetId: endpointId, client: actor.client, detail });

  /** `since` of a bulk redelivery: a real time, not ahead of now, not before the events still kept. */
  function sinceOf(raw: string, nowMs: number): string {
    const at = Date.parse(raw);
    if (Number.isNaN(at)) throw fieldError('/since', 'invalid_format', 'since must be an RFC 3339 time, e.g. 2025-01-31T09:00:00Z.');
    if (at > nowMs) throw fieldError('/since', 'in_future', 'since is later than now.');
    const oldest = nowMs - EVENT_RETENTION_MS;
    if (at < oldest) throw fieldError('/since', 'beyond_retention', `Events are kept 30 days: since must be ${isoTime(oldest)} or later.`);
    return isoTime(at);
  }

  return {
    /**
     * One delivery sent again with its original event (same webhook-id), whatever its status.
     * Audited: a redelivery goes to the endpoint's URL as it is now, so it must be traceable.
     */
    async redeliver(actor: AuditActor, endpointId: string, deliveryId: string) {
      const { orgId } = actor;
      await enabledEndpoint(orgId, endpointId);
      const outcome = await db.transaction().execute(async (trx) => {
        const result = await redeliverOne(trx, { orgId, endpointId, deliveryId, now: isoTime(clock.now()) });
        if (result === 'redelivered') await audit(trx, actor, endpointId, { delivery_id: deliveryId });
        return result;
      });
      if (outcome === 'not_found') throw new AppError('not_found', 'No delivery with this id for this endpoint.');
      if (outcome === 'too_many_attempts') throw new AppError('conflict', `This delivery has had ${MAX_ATTEMPTS_PER_DELIVERY} attempts, the most one delivery may have.`);
      deps.wakeWorker();
      const [delivery] = (await listDeliveries(db, { orgId, endpointId, limit: 1, onlyId: deliveryId })).rows;
      // The retention sweep may have removed it since: the same answer as a delivery never there.
      if (!delivery) throw new AppError('not_found', 'No delivery with this id for this endpoint.');
      return delivery;
    },

    /** Every failed delivery created at or after `since` (at most MAX_REDELIVER_PER_CALL), the worker woken once; audited with the count. */
    async redeliverFailed(actor: AuditActor, endpointId: string, since: string): Promise<{ redelivered: number }> {
      const { orgId } = actor;
      const nowMs = clock.now();
      const from = sinceOf(since, nowMs);
      await enabledEndpoint(orgId, endpointId);
      const bucket = [{ key: `webhook-redeliver:${endpointId}`, limit: BULK_REDELIVERIES_PER_HOUR, windowSeconds: 3600 }];
      const decision = await deps.attempts.take(bucket);
      if (!decision.allowed) throw tooManyAttempts(`At most ${BULK_REDELIVERIES_PER_HOUR} bulk redeliveries an hour per endpoint; try again later.`, decision.retryAfterSeconds);
      const redelivered = await db.transaction().execute(async (trx) => {
        const count = await redeliverFailedSince(trx, { orgId, endpointId, since: from, now: isoTime(nowMs) });
        if (count > 0) await audit(trx, actor, endpointId, { since: from, count });
        return count;
      });
      if (redelivered > 0) deps.wakeWorker();
      else await deps.attempts.giveBack(bucket);
      return { redelivered };
    },

    /**
     * A new signing secret. The current one becomes the previous one, signing beside the new one
     * for `overlapSeconds` (0: not at all); a rotation during an overlap drops the secret before
     * (at most two sign). One UPDATE that reads the current secret itself, so two rotations at
     * once cannot lose one of the secrets they returned.
     */
    async rotateSecret(actor: AuditActor, id: string, overlapSeconds: number): Promise<{ row: EndpointRow; secret: string }> {
      const { orgId } = actor;
      const nowMs = clock.now();
      const secret = newWebhookSecret();
      const expiresAt = overlapSeconds > 0 ? isoTime(nowMs + overlapSeconds * 1000) : null;
      return db.transaction().execute(async (trx) => {
        const row = await trx.updateTable('webhook_endpoints')
          .set((eb) => ({
            secret: sealWebhookSecret(secret, deps.secret),
            previous_secret: expiresAt === null ? null : eb.ref('secret'),
            previous_secret_expires_at: expiresAt,
            updated_at: isoTime(nowMs),
          }))
          .where('org_id', '=', orgId).where('id', '=', id)
          .returningAll().executeTakeFirst();
        if (!row) throw endpointNotFound();
        await recordAudit(trx, clock, {
          orgId, actor: { userId: actor.userId, keyId: actor.keyId }, action: 'webhook.secret_rotated', targetId: id, client: actor.client,
          detail: { overlap_seconds: overlapSeconds, previous_secret_expires_at: expiresAt },
        });
        return { row, secret };
      });
    },
  };
}
