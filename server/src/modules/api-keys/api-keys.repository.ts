import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, Database } from '../../infra/db/schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function createApiKeysRepository(db: Kysely<Database>) {
  return {
    db,
    insert: (row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),
    findByHash: (hash: string) => db.selectFrom('api_keys').selectAll().where('secret_hash', '=', hash).executeTakeFirst(),
    findForUser: (userId: string, id: string) =>
      db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst(),
    listForUser: (userId: string, limit: number, beforeId?: string) => {
      let q = db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (beforeId) q = q.where('id', '<', beforeId);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },
    /** Returns the revoked key's hash, or undefined when it was not this user's live key. */
    revoke: async (userId: string, id: string, nowIso: string) => {
      const rows = await db.updateTable('api_keys').set({ revoked_at: nowIso }).where('user_id', '=', userId).where('id', '=', id).where('revoked_at', 'is', null).returning('secret_hash').execute();
      return rows[0]?.secret_hash;
    },
    hashesForUser: (userId: string) => db.selectFrom('api_keys').select('secret_hash').where('user_id', '=', userId).execute().then((r) => r.map((x) => x.secret_hash)),
    /** Every live key of the account; returns the revoked keys' ids and hashes. */
    revokeAllForUser: (userId: string, nowIso: string) =>
      db.updateTable('api_keys').set({ revoked_at: nowIso }).where('user_id', '=', userId).where('revoked_at', 'is', null).returning(['id', 'secret_hash']).execute(),
    revokedSince: (sinceIso: string) => db.selectFrom('api_keys').select('secret_hash').where('revoked_at', '>', sinceIso).execute().then((r) => r.map((x) => x.secret_hash)),
    /**
     * One statement per key, in one transaction: the batch of last-used times. In id order, so two
     * batches (or a batch and a revoke-all) take the rows' locks in one order and cannot deadlock.
     */
    touch: (times: Map<string, string>) =>
      db.transaction().execute(async (trx) => {
        for (const [id, at] of [...times].sort(([a], [b]) => (a < b ? -1 : 1))) await trx.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
      }),
  };
}
export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
