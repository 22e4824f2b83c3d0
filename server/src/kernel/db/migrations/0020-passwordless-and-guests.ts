import type { Kysely } from 'kysely';

/**
 * Issue 35, the ways into an app:
 * - `sign_in_codes`: a passwordless sign-in under way. A mailed 6-digit code and a single-use
 *   link (only their SHA-256 stored), for an address that may have no account yet (one is made
 *   when the code is proved, if the request allowed it). A new request spends the address's older
 *   ones; `failed_attempts` retires a code after too many wrong guesses.
 * - `users.is_anonymous`: a guest account (ANONYMOUS_SIGN_IN), made without an address; an
 *   upgrade turns it into an ordinary account with the same id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sign_in_codes')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('email_normalized', 'varchar(320)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('create_account', 'integer', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('sign_in_codes_email_idx').on('sign_in_codes').columns(['email_normalized', 'created_at']).execute();
  await db.schema.createIndex('sign_in_codes_expires_idx').on('sign_in_codes').column('expires_at').execute();

  await db.schema.alterTable('users').addColumn('is_anonymous', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('users_anonymous_idx').on('users').columns(['is_anonymous', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_anonymous_idx').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('is_anonymous').execute();
  await db.schema.dropTable('sign_in_codes').ifExists().execute();
}
