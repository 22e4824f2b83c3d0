import type { Kysely } from 'kysely';

/**
 * Second factors: an account's TOTP secret (sealed like the signing keys), its hashed recovery
 * codes, the short-lived challenges a password login leaves when a factor is due, and on every
 * session how it was authenticated (`amr`) and when a factor was last proved in it (step-up).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('totp_factors')
    .addColumn('user_id', 'varchar(40)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('confirmed_at', 'varchar(30)')
    // The newest time step a code was accepted for: a code of that step or an older one is refused.
    .addColumn('last_used_step', 'integer')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').column('user_id').execute();

  await db.schema
    .createTable('mfa_challenges')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('amr', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('mfa_challenges_user_idx').on('mfa_challenges').column('user_id').execute();
  await db.schema.createIndex('mfa_challenges_expires_idx').on('mfa_challenges').column('expires_at').execute();

  await db.schema.alterTable('sessions').addColumn('amr', 'varchar(100)', (c) => c.notNull().defaultTo('pwd')).execute();
  await db.schema.alterTable('sessions').addColumn('factor_verified_at', 'varchar(30)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('factor_verified_at').execute();
  await db.schema.alterTable('sessions').dropColumn('amr').execute();
  await db.schema.dropTable('mfa_challenges').ifExists().execute();
  await db.schema.dropTable('recovery_codes').ifExists().execute();
  await db.schema.dropTable('totp_factors').ifExists().execute();
}
