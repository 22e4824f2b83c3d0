import type { Kysely } from 'kysely';

/**
 * Passkeys (WebAuthn credentials) and the challenges of their ceremonies. A challenge of a
 * passwordless login has no user yet (the authenticator names the credential); one of a
 * registration belongs to the signed-in user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential_id', 'varchar(1400)', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'varchar(200)', (c) => c.notNull())
    .addColumn('device_type', 'varchar(20)', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('passkeys_user_idx').on('passkeys').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(12)', (c) => c.notNull()) // register | login
    .addColumn('challenge', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('webauthn_challenges_user_idx').on('webauthn_challenges').column('user_id').execute();
  await db.schema.createIndex('webauthn_challenges_expires_idx').on('webauthn_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webauthn_challenges').ifExists().execute();
  await db.schema.dropTable('passkeys').ifExists().execute();
}
