import type { Kysely } from 'kysely';

/**
 * What operators and account owners run (issue 22):
 * - webhook signing-secret rotation with an overlap: until `previous_secret_expires_at` every
 *   delivery is signed with `previous_secret` as well (Standard Webhooks allows several
 *   signatures in `webhook-signature`);
 * - a response excerpt per delivery attempt (the first bytes of what the receiver answered);
 * - account deletion with a grace period: `deletion_due_at` is when the account and what it owns
 *   are purged; until then signing in restores it. Indexed for the purge sweep.
 * A change of email needs no column: its mailed token is an `email_tokens` row with purpose
 * `change_email` and the new address in `email`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'varchar(200)').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'varchar(30)').execute();
  await db.schema.alterTable('delivery_attempts').addColumn('response_excerpt', 'varchar(500)').execute();
  await db.schema.alterTable('users').addColumn('deletion_due_at', 'varchar(30)').execute();
  await db.schema.createIndex('users_deletion_due_idx').on('users').column('deletion_due_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_deletion_due_idx').execute();
  await db.schema.alterTable('users').dropColumn('deletion_due_at').execute();
  await db.schema.alterTable('delivery_attempts').dropColumn('response_excerpt').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute();
}
