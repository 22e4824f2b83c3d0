import type { Kysely } from 'kysely';

/**
 * Platform-grade API keys: a key's own budget inside its account's (`rate_limit_*`), a number of
 * uses with an optional refill (`remaining`, `refill_*`, `refilled_at`: the start of the period
 * it was last refilled in), and rolling: the secret before the last roll keeps working until
 * `previous_expires_at` (`previous_secret_hash` is unique, like `secret_hash`, and looked up the
 * same way).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('rate_limit_per_minute', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('rate_limit_per_day', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('remaining', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('refill_amount', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('refill_interval', 'varchar(5)').execute();
  await db.schema.alterTable('api_keys').addColumn('refilled_at', 'varchar(30)').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_secret_hash', 'varchar(64)').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_expires_at', 'varchar(30)').execute();
  await db.schema.createIndex('api_keys_previous_secret_hash_idx').on('api_keys').column('previous_secret_hash').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_previous_secret_hash_idx').execute();
  for (const column of ['previous_expires_at', 'previous_secret_hash', 'refilled_at', 'refill_interval', 'refill_amount', 'remaining', 'rate_limit_per_day', 'rate_limit_per_minute']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
