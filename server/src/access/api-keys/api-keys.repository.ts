import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import type { ApiKeysTable, Database } from '../../kernel/db/schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function createApiKeysRepository(db: Kysely<Database>) {
  return {
    db,
    insert: (row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),
    /** The key whose present secret, or whose secret before the last roll, has this hash. */
    findByHash: (hash: string) =>
      db.selectFrom('api_keys').selectAll().where((eb) => eb.or([eb('secret_hash', '=', hash), eb('previous_secret_hash', '=', hash)])).executeTakeFirst(),
    findInOrg: (orgId: string, id: string) =>
      db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst(),
    listForOrg: (orgId: string, limit: number, beforeId?: string) => {
      let q = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('revoked_at', 'is', null);
      if (beforeId) q = q.where('id', '<', beforeId);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },
    findById: (id: string) => db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The organization's live key, its row locked until the transaction ends on PostgreSQL. */
    findInOrgLocked: (orgId: string, id: string, dialect: DialectName) => {
      const q = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null);
      return (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
    },
    /** The organization's live key, changed; undefined when it is not one. */
    update: (orgId: string, id: string, change: Updateable<ApiKeysTable>) =>
      db.updateTable('api_keys').set(change).where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null).returningAll().executeTakeFirst(),
    /** Returns the revoked key's hashes (its secret and, within a roll's grace, the one before), or undefined when it was not the organization's live key. */
    revoke: async (orgId: string, id: string, nowIso: string) => {
      const rows = await db.updateTable('api_keys').set({ revoked_at: nowIso }).where('org_id', '=', orgId).where('id', '=', id).where('revoked_at', 'is', null)
        .returning(['secret_hash', 'previous_secret_hash']).execute();
      return rows[0] && hashesOf(rows[0]);
    },
    hashesForUser: (userId: string) =>
      db.selectFrom('api_keys').select(['secret_hash', 'previous_secret_hash']).where('user_id', '=', userId).execute().then((r) => r.flatMap(hashesOf)),
    /** Every live key the user created, in any organization; returns the revoked keys' ids, organizations and hashes. */
    revokeAllForUser: (userId: string, nowIso: string) =>
      db.updateTable('api_keys').set({ revoked_at: nowIso }).where('user_id', '=', userId).where('revoked_at', 'is', null)
        .returning(['id', 'org_id', 'secret_hash', 'previous_secret_hash']).execute()
        .then((rows) => rows.map((row) => ({ id: row.id, orgId: row.org_id, hashes: hashesOf(row) }))),
    /**
     * Spends `cost` uses of a key with a number of uses, in one statement (so concurrent requests
     * on any number of instances never spend more than there is), applying a refill that is due
     * first. Returns the uses left, or undefined when there were not enough.
     */
    spendUses: async (id: string, cost: number, at: { now: string; day: string; month: string }) => {
      const due = sql<boolean>`((refill_interval = 'day' and refilled_at < ${at.day}) or (refill_interval = 'month' and refilled_at < ${at.month}))`;
      const row = await db.updateTable('api_keys')
        .set({
          remaining: sql<number>`case when ${due} then refill_amount - ${cost} else remaining - ${cost} end`,
          refilled_at: sql<string>`case when ${due} then ${at.now} else refilled_at end`,
        })
        .where('id', '=', id).where('remaining', 'is not', null).where('revoked_at', 'is', null)
        .where(sql<number>`case when ${due} then refill_amount else remaining end`, '>=', cost)
        .returning('remaining').executeTakeFirst();
      return row?.remaining ?? undefined;
    },
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

/** A key's secret hashes: its present one and, after a roll, the one before. */
function hashesOf(row: { secret_hash: string; previous_secret_hash: string | null }): string[] {
  return row.previous_secret_hash === null ? [row.secret_hash] : [row.secret_hash, row.previous_secret_hash];
}
