import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';

/** What the account holder can see happened to their account. Public API: add, never rename. */
export const SECURITY_EVENT_TYPES = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'session_revoked',
  'refresh_token_reused',
  'password_changed',
  'password_reset_requested',
  'password_reset',
  'email_verified',
  'api_key_created',
  'api_key_updated',
  'api_key_rolled',
  'api_key_revoked',
  'account_updated_by_admin',
  'organization_updated_by_admin',
  'mfa_enabled',
  'mfa_disabled',
  'mfa_failed',
  'step_up',
  'recovery_codes_regenerated',
  'recovery_code_used',
  'passkey_added',
  'passkey_removed',
  'identity_linked',
  'identity_unlinked',
  'sessions_revoked',
  'email_change_requested',
  'email_changed',
  'account_exported',
  'account_deletion_scheduled',
  'account_restored',
  'app_connected',
  'app_disconnected',
  'sign_in_code_requested',
  'guest_upgraded',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

export function createSecurityLog(deps: { db: Kysely<Database>; clock: Clock; onError: (e: unknown) => void }) {
  const { db, clock } = deps;
  return {
    /**
     * Written after the change it describes; a failure to log is reported, never turned into a
     * failed request (the change has already happened).
     */
    async record(userId: string, type: SecurityEventType, client: ClientInfo | undefined, detail: Record<string, unknown> = {}): Promise<void> {
      await db
        .insertInto('security_events')
        .values({
          id: newId('securityEvent'), user_id: userId, type, ip: client?.ip.slice(0, 64) ?? null,
          user_agent: client?.userAgent?.slice(0, 512) ?? null, detail: JSON.stringify(detail), created_at: isoTime(clock.now()),
        })
        .execute()
        .catch(deps.onError);
    },

    /** Newest first; `type` keeps one kind (the (user_id, id) index bounds the walk to the user's events). */
    async list(userId: string, limit: number, cursor?: string, type?: SecurityEventType) {
      let q = db.selectFrom('security_events').selectAll().where('user_id', '=', userId);
      if (type) q = q.where('type', '=', type);
      if (cursor) q = q.where('id', '<', cursor);
      return toPage(await q.orderBy('id', 'desc').limit(limit + 1).execute(), limit);
    },
  };
}
export type SecurityLog = ReturnType<typeof createSecurityLog>;
