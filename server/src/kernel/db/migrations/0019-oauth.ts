import type { Kysely } from 'kysely';

/**
 * Gatehouse as an OAuth 2.1 authorization server (docs/adr/0009-protocol-engines.md): the
 * engine's state, and the apps allowed to ask.
 *
 * `oauth_records` holds everything the engine (oidc-provider) stores by model and id: codes,
 * refresh tokens, device codes, grants, interactions, sessions. A record is found by the SHA-256
 * of its id and the engine's `jti` is not kept in the payload, so the table holds no usable code
 * or token. `grant_id` lets a grant's tokens be revoked together; `account_id` lists a person's
 * grants; `expires_at` lets the sweep drop dead rows.
 *
 * `oauth_clients` holds the registered apps: an organization's (Settings → OAuth apps) or a
 * dynamically registered one (no organization). A confidential app's secret is sealed with
 * GATEHOUSE_SECRET, as webhook secrets are, since the engine compares it in plain.
 *
 * `oauth_grants` is Gatehouse's side of a grant a person made: for whom, the organization it acts
 * for, the client, the scopes and the resource agreed to. Its id is the engine's grant id and the
 * `sid` of every token issued under it, so revoking it is revoking a session; a revoked grant's
 * row stays (`revoked_at`) while its access tokens may live, so an instance that starts then
 * refuses them too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'varchar(40)', (c) => c.notNull())
    .addColumn('id_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'varchar(100)')
    .addColumn('user_code_hash', 'varchar(64)')
    .addColumn('uid_hash', 'varchar(64)')
    .addColumn('account_id', 'varchar(40)')
    .addColumn('expires_at', 'varchar(30)')
    .addColumn('consumed_at', 'varchar(30)')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('oauth_records_grant_idx').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_user_code_idx').on('oauth_records').columns(['model', 'user_code_hash']).execute();
  await db.schema.createIndex('oauth_records_uid_idx').on('oauth_records').columns(['model', 'uid_hash']).execute();
  await db.schema.createIndex('oauth_records_account_idx').on('oauth_records').columns(['account_id', 'model']).execute();
  await db.schema.createIndex('oauth_records_expires_idx').on('oauth_records').column('expires_at').execute();

  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(40)', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text')
    .addColumn('scopes', 'varchar(2000)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(40)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_clients_org_idx').on('oauth_clients').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('grant_id', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('client_id', 'varchar(100)', (c) => c.notNull())
    .addColumn('scopes', 'varchar(2000)', (c) => c.notNull())
    .addColumn('resource', 'varchar(2048)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(30)')
    .addColumn('revoked_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('oauth_grants_revoked_idx').on('oauth_grants').column('revoked_at').execute();
  await db.schema.createIndex('oauth_grants_user_idx').on('oauth_grants').columns(['user_id', 'client_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_grants').ifExists().execute();
  await db.schema.dropTable('oauth_clients').ifExists().execute();
  await db.schema.dropTable('oauth_records').ifExists().execute();
}
