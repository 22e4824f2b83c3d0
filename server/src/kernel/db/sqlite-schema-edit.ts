import type SQLite from 'better-sqlite3';

/**
 * SQLite cannot change a column's foreign key with ALTER TABLE. Its documented alternative for
 * changes that leave the stored rows as they are (https://sqlite.org/lang_altertable.html, "making
 * other kinds of table schema changes") is to edit the table's CREATE statement in sqlite_schema
 * and bump the schema version, in the migration's transaction. better-sqlite3 opens databases in
 * defensive mode, which forbids that edit, so it is lifted for the edit alone.
 *
 * The raw handle of the database being migrated is set by `migrateToLatest` for the run.
 */
let migrating: SQLite.Database | null = null;

export function setMigratingSqlite(handle: SQLite.Database | null): void {
  migrating = handle;
}

/** Points `table.column`'s foreign key at `to` instead of `from` (same key column, `id`). */
export function retargetSqliteForeignKey(table: string, column: string, from: string, to: string): void {
  const sqlite = migrating;
  if (!sqlite) throw new Error('retargetSqliteForeignKey runs only inside migrateToLatest on SQLite');
  const before = `"${column}" varchar(40) not null references "${from}" ("id")`;
  const after = `"${column}" varchar(40) not null references "${to}" ("id")`;
  const row = sqlite.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined;
  if (!row?.sql.includes(before)) throw new Error(`${table}.${column} does not reference ${from} as expected: ${row?.sql}`);
  const version = sqlite.pragma('schema_version', { simple: true }) as number;
  sqlite.unsafeMode(true);
  try {
    sqlite.pragma('writable_schema = ON');
    sqlite.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?").run(row.sql.replace(before, after), table);
    sqlite.pragma(`schema_version = ${version + 1}`);
  } finally {
    sqlite.pragma('writable_schema = OFF');
    sqlite.unsafeMode(false);
  }
}
