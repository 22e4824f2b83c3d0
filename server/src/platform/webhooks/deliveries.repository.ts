import type { Kysely } from 'kysely';
import { toPage } from '../../kernel/pagination.js';
import type { Database } from '../../kernel/db/schema.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Deliveries of one endpoint as the API shows them, newest first, each with its attempts. Two
 * queries per page (deliveries, then their attempts): attempts per delivery are bounded by the
 * retry schedule and MAX_ATTEMPTS_PER_DELIVERY for redeliveries, so a page stays small.
 */
export async function listDeliveries(
  db: Kysely<Database>,
  q: { orgId: string; endpointId: string; limit: number; cursor?: string; status?: DeliveryStatus; onlyId?: string },
) {
  let query = db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.endpoint_id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.last_error', 'd.next_attempt_at', 'd.created_at', 'd.updated_at'])
    .where('d.org_id', '=', q.orgId)
    .where('d.endpoint_id', '=', q.endpointId);
  if (q.cursor) query = query.where('d.id', '<', q.cursor);
  if (q.status) query = query.where('d.status', '=', q.status);
  if (q.onlyId) query = query.where('d.id', '=', q.onlyId);
  const page = toPage(await query.orderBy('d.id', 'desc').limit(q.limit + 1).execute(), q.limit);
  const ids = page.rows.map((r) => r.id);
  const attempts = ids.length === 0 ? [] : await db
    .selectFrom('delivery_attempts')
    .select(['delivery_id', 'attempted_at', 'status_code', 'error', 'duration_ms', 'response_excerpt'])
    .where('delivery_id', 'in', ids)
    .orderBy('id', 'asc')
    .execute();
  const rows = page.rows.map((d) => ({
    id: d.id, endpoint_id: d.endpoint_id, event_id: d.event_id, event_type: d.event_type, status: d.status as DeliveryStatus,
    attempt_count: d.attempts, last_status_code: d.last_status_code, last_error: d.last_error,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    attempts: attempts.filter((a) => a.delivery_id === d.id).map(({ delivery_id: _, ...a }) => a),
    created_at: d.created_at, updated_at: d.updated_at,
  }));
  return { rows, nextCursor: page.nextCursor };
}
