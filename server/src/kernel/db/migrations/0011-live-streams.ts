import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Live streams (platform/streams/): every event of an account gets a number, 1, 2, 3… in the order
 * the streams see them committed (kernel/events/event-sequencer.ts), the last one kept per
 * account in `event_sequences`; a stream resumes with `seq > Last-Event-ID`. On PostgreSQL,
 * `insert_no` records the order of insertion, which the numbering keeps (SQLite's rowid does the
 * same there). Events of a chat carry its id, so a chat's stream reads only them. Messages can be
 * written while they stream: a status and the sequence of the last delta. Enterprise accounts can
 * have their own cap of open streams.
 *
 * No foreign key on `event_sequences`: deleting an account must not wait for a numbering that
 * holds the counter (the row is a few bytes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_sequences')
    .addColumn('user_id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .execute();
  // bigint: an account streaming replies at a thousand deltas a second passes 2^31 in a month.
  await db.schema.alterTable('events').addColumn('seq', 'bigint').execute();
  await db.schema.alterTable('events').addColumn('chat_id', 'varchar(40)').execute();
  if (isPostgres(db)) await db.schema.alterTable('events').addColumn('insert_no', 'bigserial').execute();
  // What the numbering looks for: an account's events without a number, oldest first.
  await db.schema.createIndex('events_unnumbered_idx').on('events').columns(isPostgres(db) ? ['user_id', 'insert_no'] : ['user_id'])
    .where(sql.ref('seq'), 'is', null).execute();
  await db.schema.createIndex('events_user_seq_idx').on('events').columns(['user_id', 'seq']).execute();
  await db.schema.createIndex('events_chat_seq_idx').on('events').columns(['chat_id', 'seq']).execute();
  await db.schema.alterTable('messages').addColumn('status', 'varchar(20)', (c) => c.notNull().defaultTo('completed')).execute();
  await db.schema.alterTable('messages').addColumn('delta_sequence', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('limit_streams', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('limit_streams').execute();
  await db.schema.alterTable('messages').dropColumn('delta_sequence').execute();
  await db.schema.alterTable('messages').dropColumn('status').execute();
  await db.schema.dropIndex('events_unnumbered_idx').execute();
  await db.schema.dropIndex('events_chat_seq_idx').execute();
  await db.schema.dropIndex('events_user_seq_idx').execute();
  await db.schema.alterTable('events').dropColumn('chat_id').execute();
  if (isPostgres(db)) await db.schema.alterTable('events').dropColumn('insert_no').execute();
  await db.schema.alterTable('events').dropColumn('seq').execute();
  await db.schema.dropTable('event_sequences').execute();
}

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
