import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { AppError } from '../../kernel/errors.js';
import { sha256Hex } from '../../kernel/opaque-tokens.js';
import type { RevocationList } from '../../kernel/revocation.js';
import type { ClientInfo } from '../../kernel/client-info.js';
import type { SecurityLog } from '../../identity/index.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';

export interface ConnectedApp {
  id: string;
  client: { id: string; name: string };
  organization_id: string;
  scopes: string[];
  resource: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * The grants people made to apps: listed as Connected apps, and ended by the person, by the
 * app's removal, or with every session of the account (sign out everywhere, a password change
 * or reset, deletion, a disabled account). Ending one deletes the engine's codes and refresh
 * tokens of the grant and revokes its id, the `sid` of its access tokens, on every instance at
 * once; the row keeps `revoked_at` while those tokens could live, for instances that start later.
 */
/** Why a grant ended, as the security log says it. */
export type GrantEndReason = 'revoked' | 'app_removed' | 'sessions_ended' | 'reused';

export function createOauthGrants(deps: {
  db: Kysely<Database>; clock: Clock; revocations: RevocationList; accessTokenTtl: number;
  /** The account's security log (identity's): a grant made or ended is the account's business. */
  securityLog: Pick<SecurityLog, 'record'>;
  /** After the commit: wakes the webhook deliveries and the live streams of `oauth.grant.revoked`. */
  onEvent: (...events: RecordedEvent[]) => void;
}) {
  const { db, clock } = deps;
  const liveTokensUntil = () => clock.now() + deps.accessTokenTtl * 1000 + 60_000;

  async function end(grantIds: string[]): Promise<void> {
    if (grantIds.length === 0) return;
    await db.deleteFrom('oauth_records').where((w) => w.or([
      w('grant_id', 'in', grantIds),
      w.and([w('model', '=', 'Grant'), w('id_hash', 'in', grantIds.map(sha256Hex))]),
    ])).execute();
    await deps.revocations.revoke(grantIds, liveTokensUntil());
  }

  /**
   * Marks the grants ended and writes one `oauth.grant.revoked` event each, to the organization
   * the grant acted for (its admins' webhooks see apps leave), in one transaction.
   */
  async function revokeWhere(filter: { userId?: string; grantId?: string; clientId?: string }, reason: GrantEndReason, client?: ClientInfo): Promise<string[]> {
    const { ended, recorded } = await db.transaction().execute(async (trx) => {
      let query = trx.updateTable('oauth_grants').set({ revoked_at: isoTime(clock.now()) }).where('revoked_at', 'is', null);
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.grantId !== undefined) query = query.where('grant_id', '=', filter.grantId);
      if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
      const rows = await query.returning(['grant_id', 'user_id', 'client_id', 'org_id']).execute();
      const events: RecordedEvent[] = [];
      for (const grant of rows) {
        events.push(await recordEvent(trx, clock, { orgId: grant.org_id, type: 'oauth.grant.revoked', data: { id: grant.grant_id, user_id: grant.user_id, client_id: grant.client_id, reason } }));
      }
      return { ended: rows, recorded: events };
    });
    if (recorded.length) deps.onEvent(...recorded);
    await end(ended.map((r) => r.grant_id));
    for (const grant of ended) await deps.securityLog.record(grant.user_id, 'app_disconnected', client, { client_id: grant.client_id, grant_id: grant.grant_id, reason });
    return ended.map((r) => r.grant_id);
  }

  return {
    async list(userId: string): Promise<ConnectedApp[]> {
      const rows = await db
        .selectFrom('oauth_grants')
        .leftJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_grants.client_id')
        .select(['oauth_grants.grant_id', 'oauth_grants.client_id', 'oauth_clients.name', 'oauth_grants.org_id', 'oauth_grants.scopes', 'oauth_grants.resource', 'oauth_grants.created_at', 'oauth_grants.last_used_at'])
        .where('oauth_grants.user_id', '=', userId)
        .where('oauth_grants.revoked_at', 'is', null)
        .orderBy('oauth_grants.created_at', 'desc')
        .execute();
      return rows.map((r) => ({
        id: r.grant_id, client: { id: r.client_id, name: r.name ?? r.client_id }, organization_id: r.org_id, scopes: r.scopes.split(' ').filter(Boolean),
        resource: r.resource, created_at: r.created_at, last_used_at: r.last_used_at,
      }));
    },

    /** The person ends one grant; 404 when it is not theirs or already ended. */
    async revoke(userId: string, grantId: string, client: ClientInfo): Promise<void> {
      const ids = await revokeWhere({ userId, grantId }, 'revoked', client);
      if (ids.length === 0) throw new AppError('not_found', 'No connected app with this id.');
    },

    /** The engine ended it (a code or refresh token used twice, an app revoking its token). */
    endGrant: (grantId: string) => revokeWhere({ grantId }, 'reused'),

    /** With every session of the account. */
    revokeAllOf: (userId: string) => revokeWhere({ userId }, 'sessions_ended'),

    /** The app was removed. */
    revokeAllOfClient: (clientId: string) => revokeWhere({ clientId }, 'app_removed'),

    /** At start: grants ended recently may still have live access tokens in the wild. */
    async loadRecentRevocations(): Promise<void> {
      const since = isoTime(clock.now() - deps.accessTokenTtl * 1000 - 60_000);
      const rows = await db.selectFrom('oauth_grants').select('grant_id').where('revoked_at', '>=', since).execute();
      if (rows.length) await deps.revocations.revoke(rows.map((r) => r.grant_id), liveTokensUntil());
    },
  };
}

export type OauthGrants = ReturnType<typeof createOauthGrants>;
