import type { Kysely, Selectable } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { newId } from '../../kernel/ids.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { AuditEventsTable, Database } from '../../kernel/db/schema.js';

/** What the audit log records. Public API (GET …/audit-log): add, never rename. */
export const AUDIT_ACTIONS = [
  'organization.created',
  'organization.updated',
  'member.invited',
  'invitation.revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'api_key.created',
  'api_key.updated',
  'api_key.rolled',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.redelivered',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEventRow = Selectable<AuditEventsTable>;

/** Who changed something through the platform's API (a member's token or key), and where from. */
export interface AuditActor {
  orgId: string;
  userId: string;
  keyId: string | null;
  client: ClientInfo;
}

export interface AuditEntry {
  orgId: string;
  /** Who did it: the user, and the API key when one was used (null: an access token or the operator's CLI). */
  actor: { userId: string | null; keyId?: string | null };
  action: AuditAction;
  /** The id of what it was done to (a member's user id, an invitation, a key). */
  targetId?: string | null;
  /** Where from (absent for the operator's CLI). */
  client?: ClientInfo | undefined;
  detail?: Record<string, unknown>;
}

/**
 * Writes one audit record with the caller's transaction, so the record exists exactly when the
 * change does (unlike the security log, written after the fact: an audit log that can miss a
 * change cannot answer "who did this"). The clock is passed like recordEvent's, so tests that move
 * time see it in created_at.
 */
export async function recordAudit(trx: Kysely<Database>, clock: Clock, entry: AuditEntry): Promise<void> {
  await trx.insertInto('audit_events').values({
    id: newId('auditEvent'),
    org_id: entry.orgId,
    actor_user_id: entry.actor.userId,
    actor_key_id: entry.actor.keyId ?? null,
    action: entry.action,
    target_id: entry.targetId ?? null,
    // Bounded to the columns: both come from the client.
    ip: entry.client?.ip.slice(0, 64) ?? null,
    user_agent: entry.client?.userAgent?.slice(0, 400) ?? null,
    detail: JSON.stringify(entry.detail ?? {}),
    created_at: isoTime(clock.now()),
  }).execute();
}

/** The organization's audit records, newest first (ids sort by creation), ids below `cursor`. */
export async function listAuditEvents(db: Kysely<Database>, orgId: string, limit: number, cursor?: string) {
  let q = db.selectFrom('audit_events').selectAll().where('org_id', '=', orgId);
  if (cursor) q = q.where('id', '<', cursor);
  return toPage(await q.orderBy('id', 'desc').limit(limit + 1).execute(), limit);
}

export function presentAuditEvent(row: AuditEventRow) {
  return {
    id: row.id,
    action: row.action,
    actor: { user_id: row.actor_user_id, key_id: row.actor_key_id },
    target_id: row.target_id,
    ip: row.ip,
    user_agent: row.user_agent,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
