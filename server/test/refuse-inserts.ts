import { sql } from 'kysely';
import type { TestApp } from './harness.js';

/**
 * A real database fault for tests: a trigger that makes every insert into `table` whose
 * `column` equals `value` fail, on SQLite or PostgreSQL. Returns the function that removes it.
 * Names, table and column come from the test itself, never from a request.
 */
export async function refuseInserts(t: TestApp, table: string, column: string, value: string): Promise<() => Promise<void>> {
  const db = t.deps.database.db;
  const name = `refuse_${table}`;
  const literal = `'${value.replaceAll("'", "''")}'`;
  if (t.deps.database.dialect === 'sqlite') {
    await sql.raw(`create trigger ${name} before insert on ${table} when new.${column} = ${literal} begin select raise(abort, 'refused by test'); end`).execute(db);
    return async () => void (await sql.raw(`drop trigger ${name}`).execute(db));
  }
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin if new.${column} = ${literal} then raise exception 'refused by test'; end if; return new; end $$`).execute(db);
  await sql.raw(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`).execute(db);
  return async () => void (await sql.raw(`drop trigger ${name} on ${table}; drop function ${name}()`).execute(db));
}
