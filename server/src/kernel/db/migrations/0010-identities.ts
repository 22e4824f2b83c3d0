import type { Kysely } from 'kysely';

/**
 * Sign-in with OpenID Connect (and OAuth 2) providers: the identities linked to accounts, the
 * sign-in attempts under way at a provider (`state` → PKCE verifier, nonce, where to return), and
 * the one-time codes an app exchanges for tokens with its own PKCE verifier.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('identities')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(40)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(320)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(30)')
    .addUniqueConstraint('identities_provider_subject_unique', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('identities_user_idx').on('identities').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('oidc_flows')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(40)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(100)', (c) => c.notNull())
    .addColumn('provider_verifier', 'varchar(100)', (c) => c.notNull())
    .addColumn('redirect_uri', 'varchar(2048)', (c) => c.notNull())
    .addColumn('code_challenge', 'varchar(100)', (c) => c.notNull())
    .addColumn('client_state', 'varchar(500)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_flows_expires_idx').on('oidc_flows').column('expires_at').execute();

  await db.schema
    .createTable('oidc_codes')
    .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(40)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(320)')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(200)')
    .addColumn('code_challenge', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_codes_expires_idx').on('oidc_codes').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oidc_codes').ifExists().execute();
  await db.schema.dropTable('oidc_flows').ifExists().execute();
  await db.schema.dropTable('identities').ifExists().execute();
}
