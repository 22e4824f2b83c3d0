import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { Kysely, Selectable } from 'kysely';
import { AppError, fieldError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database, WebhookEndpointsTable } from '../../kernel/db/schema.js';
import { lockOrganization, recordAudit, releaseCapacity, takeCapacity, type AuditActor } from '../../access/index.js';
import { newId } from '../../kernel/ids.js';
import { checkOutboundUrl, OutboundRefused } from '../../kernel/outbound/url-guard.js';
import { recordEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { listDeliveries, type DeliveryStatus } from './deliveries.repository.js';
import { newWebhookSecret, sealWebhookSecret } from './webhook-secret.js';
import { createWebhookOperations } from './webhook-operations.js';
import { type CreateWebhookBody, type UpdateWebhookBody } from './webhooks.schemas.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/**
 * The secret columns never leave this module: presenting picks fields, it does not spread the row.
 * A rotation's overlap shows until it ends (`nowMs`), then reads as none.
 */
export const presentEndpoint = (e: EndpointRow, nowMs: number) => ({
  id: e.id, url: e.url, description: e.description, events: e.events.split(' '), enabled: e.enabled === 1,
  disabled_reason: e.disabled_reason,
  previous_secret_expires_at: e.previous_secret_expires_at !== null && Date.parse(e.previous_secret_expires_at) > nowMs ? e.previous_secret_expires_at : null,
  created_at: e.created_at, updated_at: e.updated_at,
});

export interface WebhooksDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  allowPrivate: boolean;
  /** GATEHOUSE_SECRET: seals endpoint secrets at rest when set. */
  secret: string | undefined;
  /** WEBHOOKS_PER_ORGANIZATION. */
  maxEndpoints: number;
  onEvent: OnEventsCommitted;
  /** Wakes this instance's delivery worker after a redelivery. */
  wakeWorker(): void;
  /** Bounds bulk redeliveries per endpoint (webhook-operations.ts). */
  attempts: AttemptLimiter;
}

/** Webhook endpoints of one organization; every query is scoped by org_id, so another organization sees 404. */
export function createWebhooksService(deps: WebhooksDeps) {
  const { db, clock } = deps;
  const notFound = () => new AppError('not_found', 'No webhook endpoint with this id.');
  const find = (q: Kysely<Database>, orgId: string, id: string) =>
    q.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();

  /** The SSRF guard at save time; the delivery worker checks again on every connection. */
  async function checkedUrl(raw: string): Promise<string> {
    try {
      return (await checkOutboundUrl(raw, { allowPrivate: deps.allowPrivate })).href;
    } catch (error) {
      if (error instanceof OutboundRefused) throw fieldError('/url', error.code, error.message);
      throw error;
    }
  }

  /** The organization's audit record of a change to one of its endpoints, in the change's transaction. */
  const audit = (trx: Kysely<Database>, actor: AuditActor, action: 'webhook.created' | 'webhook.updated' | 'webhook.deleted', id: string, detail: Record<string, unknown> = {}) =>
    recordAudit(trx, clock, { orgId: actor.orgId, actor: { userId: actor.userId, keyId: actor.keyId }, action, targetId: id, client: actor.client, detail });

  return {
    present: (row: EndpointRow) => presentEndpoint(row, clock.now()),
    ...createWebhookOperations({ db, clock, secret: deps.secret, wakeWorker: deps.wakeWorker, attempts: deps.attempts, find }),

    async create(actor: AuditActor, body: CreateWebhookBody): Promise<{ row: EndpointRow; secret: string }> {
      const { orgId } = actor;
      const url = await checkedUrl(body.url);
      const now = isoTime(clock.now());
      const secret = newWebhookSecret();
      const row: EndpointRow = {
        id: newId('webhook'), org_id: orgId, url, description: body.description ?? null, events: body.events.join(' '),
        secret: sealWebhookSecret(secret, deps.secret), enabled: 1, disabled_reason: null, created_at: now, updated_at: now,
        previous_secret: null, previous_secret_expires_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await takeCapacity(trx, orgId, 'webhook_count', deps.maxEndpoints, 'webhook endpoints');
        await trx.insertInto('webhook_endpoints').values(row).execute();
        await audit(trx, actor, 'webhook.created', row.id, { url: row.url, events: body.events });
      });
      return { row, secret };
    },

    async get(orgId: string, id: string): Promise<EndpointRow> {
      const row = await find(db, orgId, id);
      if (!row) throw notFound();
      return row;
    },

    async list(orgId: string, limit: number, cursor?: string) {
      let q = db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId);
      if (cursor) q = q.where('id', '<', cursor);
      return toPage(await q.orderBy('id', 'desc').limit(limit + 1).execute(), limit);
    },

    async update(actor: AuditActor, id: string, body: UpdateWebhookBody): Promise<EndpointRow> {
      const { orgId } = actor;
      const url = body.url !== undefined ? await checkedUrl(body.url) : undefined;
      return db.transaction().execute(async (trx) => {
        const row = await find(trx, orgId, id);
        if (!row) throw notFound();
        // Only the changed columns are written: a rotation committed meanwhile keeps its secrets.
        const changes = {
          ...(url !== undefined ? { url } : {}),
          ...(body.events !== undefined ? { events: body.events.join(' ') } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0, disabled_reason: body.enabled ? null : 'disabled by the account' } : {}),
          updated_at: isoTime(clock.now()),
        };
        await trx.updateTable('webhook_endpoints').set(changes).where('id', '=', id).where('org_id', '=', orgId).execute();
        await audit(trx, actor, 'webhook.updated', id, { fields: Object.keys(body) });
        return { ...row, ...changes };
      });
    },

    /** Its deliveries and their attempts go with it (ON DELETE CASCADE). */
    async delete(actor: AuditActor, id: string): Promise<void> {
      const { orgId } = actor;
      await db.transaction().execute(async (trx) => {
        await lockOrganization(trx, deps.dialect, orgId);
        const result = await trx.deleteFrom('webhook_endpoints').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw notFound();
        await releaseCapacity(trx, orgId, 'webhook_count');
        await audit(trx, actor, 'webhook.deleted', id);
      });
    },

    /** Records a webhook.test event for this endpoint only; the worker delivers it like any other. */
    async sendTest(orgId: string, id: string) {
      const { deliveryId, recorded } = await db.transaction().execute(async (trx) => {
        const row = await find(trx, orgId, id);
        if (!row) throw notFound();
        if (row.enabled !== 1) throw new AppError('conflict', 'This endpoint is disabled; enable it (PATCH enabled: true) before sending a test.');
        const recorded = await recordEvent(trx, clock, { orgId, type: 'webhook.test', data: { endpoint_id: id, message: 'A test event from Gatehouse.' }, onlyEndpointId: id });
        const delivery = await trx.selectFrom('deliveries').select('id').where('event_id', '=', recorded.event.id).where('endpoint_id', '=', id).executeTakeFirstOrThrow();
        return { deliveryId: delivery.id, recorded };
      });
      deps.onEvent(recorded);
      const page = await listDeliveries(db, { orgId, endpointId: id, limit: 1, onlyId: deliveryId });
      return page.rows[0]!;
    },

    async listDeliveries(orgId: string, endpointId: string, limit: number, cursor?: string, status?: DeliveryStatus) {
      if (!(await find(db, orgId, endpointId))) throw notFound();
      return listDeliveries(db, { orgId, endpointId, limit, cursor, status });
    },
  };
}
export type WebhooksService = ReturnType<typeof createWebhooksService>;
