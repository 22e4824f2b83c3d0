import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { retargetSqliteForeignKey } from '../sqlite-schema-edit.js';

/**
 * Teams (access/organizations/): everything an account owned now belongs to an organization.
 * Each existing user gets a personal organization, `org_` + the same 26 characters as the user's
 * id, owned by that user, carrying what the user carried as an account: the tier, the custom
 * limits, the counters of capped collections. Then every owned table's `user_id` becomes `org_id`
 * (same values moved to the personal organization, foreign key now to organizations), except
 * `api_keys`, whose `user_id` stays (the member who created the key, whose role caps its scopes)
 * and who gets an `org_id` beside it. Nothing is deleted; every API key keeps its secret.
 *
 * Index names keep their old `user_id` wording (renaming an index on SQLite means rebuilding it);
 * the columns they cover are renamed with the tables'.
 */
const OWNED_WITH_FOREIGN_KEY = ['agents', 'chats', 'messages', 'webhook_endpoints', 'events', 'idempotency_keys', 'usage_counts'] as const;
const OWNED_WITHOUT_FOREIGN_KEY = ['deliveries', 'event_sequences'] as const;
const ACCOUNT_COLUMNS = ['tier', 'limit_per_minute', 'limit_per_day', 'limit_streams', 'agent_count', 'chat_count', 'api_key_count', 'webhook_count'] as const;

/** The personal organization's id of a user id, in SQL ('usr_' is four characters). */
const personalOrgOf = (column: string) => sql`'org_' || substr(${sql.ref(column)}, 5)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // PostgreSQL runs each migration in a transaction already (transactional DDL); SQLite does not, so one is begun here.
  const inTransaction = (work: (trx: Kysely<unknown>) => Promise<void>) => (postgres ? work(db) : db.transaction().execute(work));
  await inTransaction(async (trx) => {
    await trx.schema
      .createTable('organizations')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(400)', (c) => c.notNull())
      // 1: the one created with its user, deleted only with that user, who stays its owner.
      .addColumn('personal', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tier', 'varchar(20)', (c) => c.notNull().defaultTo('free'))
      .addColumn('limit_per_minute', 'integer')
      .addColumn('limit_per_day', 'integer')
      .addColumn('limit_streams', 'integer')
      .addColumn('agent_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('chat_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('api_key_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('webhook_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
      .execute();

    await trx.schema
      .createTable('memberships')
      .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'varchar(10)', (c) => c.notNull()) // owner | admin | member | viewer
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
      .execute();
    await trx.schema.createIndex('memberships_user_id_idx').on('memberships').columns(['user_id', 'org_id']).execute();

    await trx.schema
      .createTable('invitations')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('email', 'varchar(254)', (c) => c.notNull())
      .addColumn('email_normalized', 'varchar(254)', (c) => c.notNull())
      .addColumn('role', 'varchar(10)', (c) => c.notNull())
      // SHA-256 of the link's token: the link itself is only in the mail.
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('invited_by', 'varchar(40)')
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
      .addColumn('accepted_at', 'varchar(30)')
      .addColumn('accepted_by', 'varchar(40)')
      .addColumn('revoked_at', 'varchar(30)')
      .execute();
    await trx.schema.createIndex('invitations_org_id_idx').on('invitations').columns(['org_id', 'id']).execute();

    // Who did what in an organization, from where. Actors are ids only (no foreign key): the
    // record outlives a member who leaves or deletes their account.
    await trx.schema
      .createTable('audit_events')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('actor_user_id', 'varchar(40)')
      .addColumn('actor_key_id', 'varchar(40)')
      .addColumn('action', 'varchar(100)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(80)')
      .addColumn('ip', 'varchar(64)')
      .addColumn('user_agent', 'varchar(400)')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .execute();
    await trx.schema.createIndex('audit_events_org_id_idx').on('audit_events').columns(['org_id', 'id']).execute();

    await trx.schema.alterTable('users').addColumn('personal_org_id', 'varchar(40)').execute();
    // Organizations a user belongs to, taken like every other cap (access/organizations/organization-caps.ts).
    await trx.schema.alterTable('users').addColumn('organization_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();

    const now = new Date().toISOString();
    await sql`INSERT INTO organizations (id, name, personal, tier, limit_per_minute, limit_per_day, limit_streams, agent_count, chat_count, api_key_count, webhook_count, created_at, updated_at)
      SELECT ${personalOrgOf('id')}, CASE WHEN name = '' THEN 'Personal' ELSE name END, 1, tier, limit_per_minute, limit_per_day, limit_streams,
             agent_count, chat_count, api_key_count, webhook_count, created_at, ${now} FROM users`.execute(trx);
    await sql`INSERT INTO memberships (org_id, user_id, role, created_at) SELECT ${personalOrgOf('id')}, id, 'owner', created_at FROM users`.execute(trx);
    await sql`UPDATE users SET personal_org_id = ${personalOrgOf('id')}, organization_count = 1`.execute(trx);

    for (const table of [...OWNED_WITH_FOREIGN_KEY, ...OWNED_WITHOUT_FOREIGN_KEY]) {
      await trx.schema.alterTable(table).renameColumn('user_id', 'org_id').execute();
    }
    // The foreign keys move before the values do on SQLite (which checks each row as it is
    // written) and after them on PostgreSQL (which checks every row when the constraint is added).
    for (const table of OWNED_WITH_FOREIGN_KEY) {
      if (postgres) await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.id(`${table}_user_id_fkey`)}`.execute(trx);
      else retargetSqliteForeignKey(table, 'org_id', 'users', 'organizations');
    }
    for (const table of [...OWNED_WITH_FOREIGN_KEY, ...OWNED_WITHOUT_FOREIGN_KEY]) {
      await sql`UPDATE ${sql.table(table)} SET org_id = ${personalOrgOf('org_id')}`.execute(trx);
    }
    if (postgres) {
      for (const table of OWNED_WITH_FOREIGN_KEY) {
        await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.id(`${table}_org_id_fkey`)} FOREIGN KEY (org_id) REFERENCES organizations (id) ON DELETE CASCADE`.execute(trx);
      }
    }

    await trx.schema.alterTable('api_keys').addColumn('org_id', 'varchar(40)', (c) => c.references('organizations.id').onDelete('cascade')).execute();
    await sql`UPDATE api_keys SET org_id = ${personalOrgOf('user_id')}`.execute(trx);
    await trx.schema.createIndex('api_keys_org_id_idx').on('api_keys').columns(['org_id', 'id']).execute();

    for (const column of ACCOUNT_COLUMNS) await trx.schema.alterTable('users').dropColumn(column).execute();
  });
}

export async function down(): Promise<void> {
  throw new Error('0014-organizations cannot be undone: restore the backup taken before it.');
}
