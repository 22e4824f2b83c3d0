import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database, RefreshTokensTable, SessionsTable } from '../../kernel/db/schema.js';

export type SessionRow = Selectable<SessionsTable>;

export function createSessionsRepository(db: Kysely<Database>, dialect: DialectName) {
  return {
    db,
    dialect,
    /**
     * A new session and its first refresh token: both or neither. On PostgreSQL one statement (a
     * data-modifying CTE is atomic, and the foreign key is checked at its end): one round trip on
     * every login instead of four (BEGIN, two INSERTs, COMMIT). SQLite has no data-modifying
     * CTEs, and its transactions cost no round trips.
     */
    insertWithRefreshToken: async (session: Insertable<SessionsTable>, refreshToken: Insertable<RefreshTokensTable>): Promise<void> => {
      if (dialect === 'postgres') {
        await db.with('new_session', (w) => w.insertInto('sessions').values(session)).insertInto('refresh_tokens').values(refreshToken).execute();
        return;
      }
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('sessions').values(session).execute();
        await trx.insertInto('refresh_tokens').values(refreshToken).execute();
      });
    },
    markFactorProved: async (userId: string, sessionId: string, nowIso: string): Promise<void> => {
      await db.updateTable('sessions').set({ factor_verified_at: nowIso }).where('id', '=', sessionId).where('user_id', '=', userId).execute();
    },
    findById: (id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
    findByRefreshHash: (hash: string) =>
      db
        .selectFrom('refresh_tokens')
        .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
        .select(['refresh_tokens.token_hash', 'refresh_tokens.rotated_at', 'sessions.id as session_id', 'sessions.user_id', 'sessions.revoked_at', 'sessions.expires_at', 'sessions.amr'])
        .where('refresh_tokens.token_hash', '=', hash)
        .executeTakeFirst(),
    listActiveForUser: (userId: string, nowIso: string, limit: number, beforeId?: string) => {
      let q = db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', nowIso);
      if (beforeId) q = q.where('id', '<', beforeId);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },
    /** Marks the sessions revoked and returns the ids that were still live. */
    revoke: async (where: { userId: string; sessionId?: string; exceptSessionId?: string }, nowIso: string, reason: string) => {
      let q = db.updateTable('sessions').set({ revoked_at: nowIso, revoked_reason: reason }).where('user_id', '=', where.userId).where('revoked_at', 'is', null);
      if (where.sessionId) q = q.where('id', '=', where.sessionId);
      if (where.exceptSessionId) q = q.where('id', '!=', where.exceptSessionId);
      const rows = await q.returning('id').execute();
      return rows.map((r) => r.id);
    },
    idsForUser: (userId: string) => db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute().then((r) => r.map((x) => x.id)),
    revokedSince: (sinceIso: string) =>
      db.selectFrom('sessions').select(['id', 'revoked_at']).where('revoked_at', '>', sinceIso).execute(),
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
