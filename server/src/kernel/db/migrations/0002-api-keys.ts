import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(400)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('prefix', 'varchar(8)', (c) => c.notNull())
    .addColumn('last_four', 'varchar(4)', (c) => c.notNull())
    .addColumn('scopes', 'varchar(400)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)')
    .addColumn('last_used_at', 'varchar(30)')
    .addColumn('revoked_at', 'varchar(30)')
    .execute();
  await db.schema.createIndex('api_keys_user_id_idx').on('api_keys').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('api_keys_revoked_at_idx').on('api_keys').column('revoked_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').ifExists().execute();
}
