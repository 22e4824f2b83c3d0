import { randomBytes } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../database.js';
import { MIGRATIONS } from './index.js';

/**
 * A database from before the counters (migrated to 0006, with data in it) gets counters that
 * match what it holds: revoked API keys are not counted, every other row is.
 */
const url = process.env.DATABASE_URL ?? 'sqlite::memory:';
const dialect = url.startsWith('postgres') ? 'postgres' : 'sqlite';

describe(`migration 0007 counts what an existing database holds (${dialect})`, () => {
  let handle: DatabaseHandle | undefined;
  const schema = dialect === 'postgres' ? `migrate_${randomBytes(6).toString('hex')}` : undefined;
  afterEach(async () => {
    if (schema) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle!.db);
    await handle?.close();
  });

  it('backfills users.*_count and chats.message_count', async () => {
    handle = await openDatabase({ url, schema });
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableSchema: schema });
    expect((await migrator.migrateTo('0006-idempotency-location')).error).toBeUndefined();
    const db = handle.db as unknown as Kysely<any>;
    const now = new Date().toISOString();
    const user = (id: string) => ({ id, email: `${id}@example.com`, email_normalized: `${id}@example.com`, name: id, password_hash: 'x', tier: 'free', role: 'user', email_verified: 0, disabled: 0, created_at: now, updated_at: now });
    await db.insertInto('users').values([user('usr_a'), user('usr_b')]).execute();
    const agent = (id: string, userId: string) => ({ id, user_id: userId, name: id, description: '', instructions: '', model: 'm', metadata: '{}', created_at: now, updated_at: now });
    await db.insertInto('agents').values([agent('agt_1', 'usr_a'), agent('agt_2', 'usr_a'), agent('agt_3', 'usr_b')]).execute();
    await db.insertInto('chats').values([1, 2, 3].map((i) => ({ id: `cht_${i}`, user_id: 'usr_a', agent_id: 'agt_1', title: null, created_at: now, updated_at: now }))).execute();
    await db.insertInto('messages').values([1, 2].map((i) => ({ id: `msg_${i}`, chat_id: 'cht_1', user_id: 'usr_a', role: 'user', content: 'hi', created_at: now }))).execute();
    const key = (id: string, revoked: boolean) => ({ id, user_id: 'usr_a', name: id, secret_hash: id, prefix: 'gth_', last_four: 'abcd', scopes: '', created_at: now, expires_at: null, last_used_at: null, revoked_at: revoked ? now : null });
    await db.insertInto('api_keys').values([key('key_1', false), key('key_2', true), key('key_3', false)]).execute();
    await db.insertInto('webhook_endpoints').values({ id: 'whk_1', user_id: 'usr_b', url: 'https://example.com', description: null, events: '*', secret: 's', enabled: 1, disabled_reason: null, created_at: now, updated_at: now }).execute();

    // To 0007 only: it is what this tests, and 0014 moves the counters to organizations.
    expect((await migrator.migrateTo('0007-counters-and-indexes')).error).toBeUndefined();
    const users = await db.selectFrom('users').select(['id', 'agent_count', 'chat_count', 'api_key_count', 'webhook_count']).orderBy('id').execute();
    expect(users.map((u) => ({ ...u, agent_count: Number(u.agent_count), chat_count: Number(u.chat_count), api_key_count: Number(u.api_key_count), webhook_count: Number(u.webhook_count) }))).toEqual([
      { id: 'usr_a', agent_count: 2, chat_count: 3, api_key_count: 2, webhook_count: 0 },
      { id: 'usr_b', agent_count: 1, chat_count: 0, api_key_count: 0, webhook_count: 1 },
    ]);
    const chats = await db.selectFrom('chats').select(['id', 'message_count']).orderBy('id').execute();
    expect(chats.map((c) => [c.id, Number(c.message_count)])).toEqual([['cht_1', 2], ['cht_2', 0], ['cht_3', 0]]);
  });
});
