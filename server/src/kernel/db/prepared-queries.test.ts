import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type DatabaseHandle } from './database.js';
import { preparedQuery } from './prepared-queries.js';

// The same checks on the embedded database and, when DATABASE_URL is set, on PostgreSQL.
const url = process.env.DATABASE_URL ?? 'sqlite::memory:';
const schema = process.env.DATABASE_URL ? `test_${randomBytes(6).toString('hex')}` : undefined;

const userNamed = preparedQuery((q, $: { id: string }) => q.selectFrom('users').select(['id', 'email']).where('id', '=', $.id));
const usersBefore = preparedQuery((q, $: { cursor: string; limit: number }) =>
  q.selectFrom('users').select('id').where('id', '<', $.cursor).where('disabled', '=', 0).orderBy('id', 'desc').limit($.limit));
const rename = preparedQuery((q, $: { id: string; name: string }) => q.updateTable('users').set({ name: $.name }).where('id', '=', $.id));

describe(`preparedQuery (${url.split(':')[0]})`, () => {
  let database: DatabaseHandle;
  const now = new Date().toISOString();
  const user = (id: string) => ({
    id, email: `${id}@example.com`, email_normalized: `${id}@example.com`, name: id, password_hash: 'x', role: 'user',
    email_verified: 0, disabled: 0, personal_org_id: `org_${id.slice(4)}`, created_at: now, updated_at: now,
  });

  beforeAll(async () => {
    database = await openDatabase({ url, schema });
    await migrateToLatest(database);
    await database.db.insertInto('users').values(['usr_a', 'usr_b', 'usr_c'].map(user)).execute();
  });
  afterAll(async () => {
    if (schema) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
    await database.close();
  });

  it('binds named values and the constants written into the query, call after call', async () => {
    expect(await userNamed.first({ id: 'usr_b' }, database.db)).toEqual({ id: 'usr_b', email: 'usr_b@example.com' });
    expect(await userNamed.first({ id: 'usr_x' }, database.db)).toBeUndefined();
    expect(await usersBefore.all({ cursor: 'usr_c', limit: 5 }, database.db)).toEqual([{ id: 'usr_b' }, { id: 'usr_a' }]);
    expect(await usersBefore.all({ cursor: 'usr_c', limit: 1 }, database.db)).toEqual([{ id: 'usr_b' }]);
    expect(await rename.run({ id: 'usr_a', name: 'Ada' }, database.db)).toBe(1);
    expect(await rename.run({ id: 'usr_x', name: 'Nobody' }, database.db)).toBe(0);
  });

  it.runIf(process.env.DATABASE_URL)('runs as a named statement on PostgreSQL, in a transaction too (parsed and planned once per connection)', async () => {
    const prepared = async (q: typeof database.db) =>
      (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(q)).rows.map((r) => r.statement);
    // Run nowhere else, so only the transaction's connection can have prepared it.
    const renameByEmail = preparedQuery((q, $: { email: string; name: string }) => q.updateTable('users').set({ name: $.name }).where('email', '=', $.email));
    await database.db.transaction().execute(async (trx) => {
      expect(await renameByEmail.run({ email: 'usr_c@example.com', name: 'In a transaction' }, trx)).toBe(1);
      expect((await prepared(trx)).some((s) => /update "users" set "name" = \$1 where "email" = \$2/.test(s))).toBe(true);
    });
    expect(await userNamed.first({ id: 'usr_c' }, database.db)).toEqual({ id: 'usr_c', email: 'usr_c@example.com' });
  });

  it('refuses a call that leaves a parameter out, naming it', async () => {
    await expect(userNamed.first({} as { id: string }, database.db)).rejects.toThrow(/no value for \$\.id/);
  });

  it('runs inside a transaction on its connection, and outside it sees only what was committed', async () => {
    let insideSaw: unknown;
    let outsideSaw: unknown = 'not run';
    let outside: Promise<void> | undefined;
    await database.db.transaction().execute(async (trx) => {
      await rename.run({ id: 'usr_b', name: 'Changed in the transaction' }, trx);
      insideSaw = (await trx.selectFrom('users').select('name').where('id', '=', 'usr_b').executeTakeFirst())?.name;
      // Started while the transaction is open: it must not read the uncommitted name.
      outside = database.db.selectFrom('users').select('name').where('id', '=', 'usr_b').executeTakeFirst().then(() => undefined);
      outsideSaw = await Promise.race([
        preparedQuery((q, $: { id: string }) => q.selectFrom('users').select('name').where('id', '=', $.id)).first({ id: 'usr_b' }, database.db),
        new Promise((resolve) => setTimeout(() => resolve('waited'), 50)),
      ]);
      throw new Error('roll back');
    }).catch((error: Error) => expect(error.message).toBe('roll back'));
    await outside;
    expect(insideSaw).toBe('Changed in the transaction');
    // SQLite has one connection: the outside read waits for the transaction. PostgreSQL reads the committed row at once.
    expect(outsideSaw === 'waited' || (outsideSaw as { name: string }).name === 'usr_b').toBe(true);
    expect((await userNamed.first({ id: 'usr_b' }, database.db))?.id).toBe('usr_b');
    expect((await database.db.selectFrom('users').select('name').where('id', '=', 'usr_b').executeTakeFirst())?.name).toBe('usr_b');
  });
});
