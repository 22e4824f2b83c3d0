import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/kernel/db/database.js';

/**
 * A database of a migration test's own, to migrate step by step: a SQLite file in a temporary
 * folder, or a PostgreSQL schema of its own when DATABASE_URL is set. `open` may be called again
 * (a fresh connection after a schema change); after each test the newest handle is closed and
 * the schema or folder removed.
 */
export function scratchDatabase(label: string) {
  const url = process.env.DATABASE_URL ?? 'sqlite:';
  const dialect: 'postgres' | 'sqlite' = url.startsWith('postgres') ? 'postgres' : 'sqlite';
  const schema = dialect === 'postgres' ? `migrate_${randomBytes(6).toString('hex')}` : undefined;
  let handle: DatabaseHandle | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (schema && handle) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
    await handle?.close();
    handle = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return {
    dialect,
    /** The PostgreSQL schema (undefined on SQLite), for a Migrator's own table. */
    schema,
    async open(): Promise<DatabaseHandle> {
      if (dialect === 'postgres') return (handle = await openDatabase({ url, schema }));
      dir ??= mkdtempSync(join(tmpdir(), `gatehouse-${label}-`));
      return (handle = await openDatabase({ url: `sqlite:${join(dir, 'gatehouse.db')}` }));
    },
  };
}
