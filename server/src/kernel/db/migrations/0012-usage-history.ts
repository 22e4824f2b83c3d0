import type { Kysely } from 'kysely';

/**
 * Usage history (access/usage/usage-counter.ts): how many requests an account and each of its API
 * keys made, per UTC hour and per UTC day, by outcome. Each instance counts in memory and adds its
 * counts in batches (`INSERT … ON CONFLICT DO UPDATE SET ok = usage_counts.ok + excluded.ok`), so
 * any number of instances share the rows without coordination.
 *
 * `key_id` '' is the account's total (every key and session); `bucket_start` is the start of the
 * hour or day as RFC 3339 text (`isoTime`), which sorts as text. bigint: an account at 25,000
 * requests a second passes 2^31 in one day. Deleting an account deletes its rows (ON DELETE
 * CASCADE, like everything else it owns); the counter skips counts of accounts deleted meanwhile.
 * The index serves retention, which deletes by granularity and age.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_counts')
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_id', 'varchar(40)', (c) => c.notNull().defaultTo(''))
    .addColumn('granularity', 'varchar(5)', (c) => c.notNull())
    .addColumn('bucket_start', 'varchar(30)', (c) => c.notNull())
    .addColumn('ok', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limited', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('unauthorized', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('forbidden', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_counts_pk', ['user_id', 'key_id', 'granularity', 'bucket_start'])
    .execute();
  await db.schema.createIndex('usage_counts_retention_idx').on('usage_counts').columns(['granularity', 'bucket_start']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_counts').execute();
}
