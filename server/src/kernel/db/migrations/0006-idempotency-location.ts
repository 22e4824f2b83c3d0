import type { Kysely } from 'kysely';

/** A replayed creation carries the first answer's Location header too. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('response_location', 'varchar(2048)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('response_location').execute();
}
