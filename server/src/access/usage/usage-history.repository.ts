import type { Kysely } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import { preparedQuery } from '../../kernel/db/prepared-queries.js';
import type { Database, UsageCountsTable } from '../../kernel/db/schema.js';
import type { Granularity } from './usage-buckets.js';

/** One row to add to `usage_counts`: its key and the counts to add. */
export type UsageCountRow = UsageCountsTable;

export interface StoredBucket {
  bucket_start: string;
  ok: number;
  rate_limited: number;
  unauthorized: number;
  forbidden: number;
}

/** 8 values a row: 500 rows stay far below the bind-parameter limits of SQLite (32766) and PostgreSQL (65535). */
const ROWS_PER_INSERT = 500;
const IDS_PER_LOOKUP = 1000;

const readBuckets = preparedQuery((q, $: { orgId: string; keyId: string; granularity: Granularity; from: string; to: string }) =>
  q.selectFrom('usage_counts')
    .select(['bucket_start', 'ok', 'rate_limited', 'unauthorized', 'forbidden'])
    .where('org_id', '=', $.orgId).where('key_id', '=', $.keyId).where('granularity', '=', $.granularity)
    .where('bucket_start', '>=', $.from).where('bucket_start', '<=', $.to)
    .orderBy('bucket_start'));

// Revoked keys too: their history stays readable.
const findKey = preparedQuery((q, $: { orgId: string; keyId: string }) =>
  q.selectFrom('api_keys').select('id').where('id', '=', $.keyId).where('org_id', '=', $.orgId));

const pruneBefore = preparedQuery((q, $: { granularity: Granularity; before: string }) =>
  q.deleteFrom('usage_counts').where('granularity', '=', $.granularity).where('bucket_start', '<', $.before));

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byKey = (a: UsageCountRow, b: UsageCountRow) =>
  compare(a.org_id, b.org_id) || compare(a.key_id, b.key_id) || compare(a.granularity, b.granularity) || compare(a.bucket_start, b.bucket_start);

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createUsageHistoryRepository(db: Kysely<Database>, dialect: DialectName) {
  return {
    /**
     * Adds the counts of `rows` to what is stored, in one transaction: multi-row INSERTs whose
     * conflicts on the primary key add to the row (so instances sharing a database need no
     * coordination). Each row's key must appear once (PostgreSQL refuses to update a row twice in
     * one statement). Rows go in key order, so two instances adding to the same rows lock them in
     * the same order and cannot deadlock. Rows of accounts deleted since they were counted are
     * left out (the foreign key would fail the whole batch, for ever): the accounts' rows are
     * read first, locked on PostgreSQL (FOR KEY SHARE), so a deletion waits for the commit and
     * then takes the new rows with it. Returns how many rows were written.
     */
    async add(rows: UsageCountRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      return db.transaction().execute(async (trx) => {
        const orgIds = [...new Set(rows.map((r) => r.org_id))];
        const existing = new Set<string>();
        for (const ids of chunks(orgIds, IDS_PER_LOOKUP)) {
          let lookup = trx.selectFrom('organizations').select('id').where('id', 'in', ids);
          if (dialect === 'postgres') lookup = lookup.forKeyShare();
          for (const { id } of await lookup.execute()) existing.add(id);
        }
        const kept = (existing.size === orgIds.length ? [...rows] : rows.filter((r) => existing.has(r.org_id))).sort(byKey);
        for (const batch of chunks(kept, ROWS_PER_INSERT)) {
          await trx.insertInto('usage_counts').values(batch)
            .onConflict((oc) => oc.columns(['org_id', 'key_id', 'granularity', 'bucket_start']).doUpdateSet((eb) => ({
              ok: eb('usage_counts.ok', '+', eb.ref('excluded.ok')),
              rate_limited: eb('usage_counts.rate_limited', '+', eb.ref('excluded.rate_limited')),
              unauthorized: eb('usage_counts.unauthorized', '+', eb.ref('excluded.unauthorized')),
              forbidden: eb('usage_counts.forbidden', '+', eb.ref('excluded.forbidden')),
            })))
            .execute();
        }
        return kept.length;
      });
    },

    /** The stored buckets of an account (`keyId` '') or key between two bucket starts (both included), oldest first; counts as numbers. */
    async read(orgId: string, keyId: string, granularity: Granularity, from: string, to: string): Promise<StoredBucket[]> {
      const rows = await readBuckets.all({ orgId, keyId, granularity, from, to }, db);
      return rows.map((r) => ({
        bucket_start: r.bucket_start, ok: Number(r.ok), rate_limited: Number(r.rate_limited), unauthorized: Number(r.unauthorized), forbidden: Number(r.forbidden),
      }));
    },

    /** Whether the key is (or was: revoked keys count) one of the account's. */
    keyBelongsTo: async (orgId: string, keyId: string): Promise<boolean> => (await findKey.first({ orgId, keyId }, db)) !== undefined,

    /** Deletes the buckets of `granularity` that start before `before`; how many went. */
    prune: (granularity: Granularity, before: string): Promise<number> => pruneBefore.run({ granularity, before }, db),
  };
}
export type UsageHistoryRepository = ReturnType<typeof createUsageHistoryRepository>;
