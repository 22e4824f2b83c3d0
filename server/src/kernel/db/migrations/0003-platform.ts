import type { Kysely } from 'kysely';

/** Agents, chats and messages; webhook endpoints with the event outbox; idempotency records. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(400)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('model', 'varchar(400)', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agents_user_id_idx').on('agents').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('chats')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('agent_id', 'varchar(40)', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('title', 'varchar(800)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chats_user_id_idx').on('chats').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('chats_agent_id_idx').on('chats').columns(['agent_id', 'id']).execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('chat_id', 'varchar(40)', (c) => c.notNull().references('chats.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(20)', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_chat_id_idx').on('messages').columns(['chat_id', 'id']).execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('description', 'varchar(2000)')
    .addColumn('events', 'varchar(2000)', (c) => c.notNull())
    .addColumn('secret', 'varchar(200)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'varchar(200)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_user_id_idx').on('webhook_endpoints').columns(['user_id', 'id']).execute();

  // The outbox: an event and its deliveries are written in the same transaction as the change.
  await db.schema
    .createTable('events')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'varchar(100)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('event_id', 'varchar(40)', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('status', 'varchar(20)', (c) => c.notNull()) // pending | delivered | failed
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'varchar(30)')
    .addColumn('locked_until', 'varchar(30)')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'varchar(500)')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deliveries_due_idx').on('deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('deliveries_endpoint_idx').on('deliveries').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('delivery_id', 'varchar(40)', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'varchar(500)')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('delivery_attempts_delivery_idx').on('delivery_attempts').columns(['delivery_id', 'id']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'varchar(40)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['idempotency_keys', 'delivery_attempts', 'deliveries', 'events', 'webhook_endpoints', 'messages', 'chats', 'agents']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
