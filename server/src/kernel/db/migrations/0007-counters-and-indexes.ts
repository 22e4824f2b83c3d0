import { sql, type Kysely } from 'kysely';

/**
 * Caps without COUNT(*): each capped collection has a counter beside its owner, taken with one
 * conditional UPDATE (access/organizations/organization-caps.ts), so concurrent creates cannot
 * overrun a cap on either database. Counters start from what the tables hold.
 * And an index for every foreign key and retention query that had none.
 */
const USER_COUNTERS = {
  agent_count: sql`(SELECT COUNT(*) FROM agents WHERE agents.user_id = users.id)`,
  chat_count: sql`(SELECT COUNT(*) FROM chats WHERE chats.user_id = users.id)`,
  api_key_count: sql`(SELECT COUNT(*) FROM api_keys WHERE api_keys.user_id = users.id AND api_keys.revoked_at IS NULL)`,
  webhook_count: sql`(SELECT COUNT(*) FROM webhook_endpoints WHERE webhook_endpoints.user_id = users.id)`,
} as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of Object.keys(USER_COUNTERS)) {
    await db.schema.alterTable('users').addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema.alterTable('chats').addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`UPDATE users SET agent_count = ${USER_COUNTERS.agent_count}, chat_count = ${USER_COUNTERS.chat_count}, api_key_count = ${USER_COUNTERS.api_key_count}, webhook_count = ${USER_COUNTERS.webhook_count}`.execute(db);
  await sql`UPDATE chats SET message_count = (SELECT COUNT(*) FROM messages WHERE messages.chat_id = chats.id)`.execute(db);

  await db.schema.createIndex('messages_user_id_idx').on('messages').column('user_id').execute();
  await db.schema.createIndex('events_user_id_idx').on('events').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('events_created_at_idx').on('events').column('created_at').execute();
  await db.schema.createIndex('deliveries_event_id_idx').on('deliveries').column('event_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['deliveries_event_id_idx', 'events_created_at_idx', 'events_user_id_idx', 'messages_user_id_idx']) await db.schema.dropIndex(index).execute();
  await db.schema.alterTable('chats').dropColumn('message_count').execute();
  for (const column of Object.keys(USER_COUNTERS).reverse()) await db.schema.alterTable('users').dropColumn(column).execute();
}
