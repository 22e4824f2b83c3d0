import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import { CurrentSchemaPostgresDialect } from './current-schema-introspector.js';
import pg from 'pg';
import { MIGRATIONS } from './migrations/index.js';
import type { Database } from './schema.js';
import { withPreparedStatements } from './sqlite-statements.js';
import { registerSqlRunner, runThroughKysely, type SqlResult } from './prepared-queries.js';
import { namedStatementClient } from './named-statements.js';
import { setMigratingSqlite } from './sqlite-schema-edit.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The better-sqlite3 handle (SQLite only), for the schema edits migrations cannot make through Kysely. */
  sqlite?: SQLite.Database;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  /** PostgreSQL schema to use (and create); tests give each app its own. */
  schema?: string;
  poolSize?: number;
}

const NO_ROWS = Object.freeze([]) as unknown as unknown[];

function openSqlite(url: string): DatabaseHandle {
  const path = url.slice('sqlite:'.length) || ':memory:';
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets readers run beside the writer; NORMAL sync is durable across process crashes in WAL mode.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Reads of a large database (a million agents) should not pay a read() per page: a 64 MiB page
  // cache (the default is 2 MiB) and the file memory-mapped up to 256 MiB. Both are ceilings.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
  const statements = withPreparedStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  // better-sqlite3 runs a statement to its end synchronously, so a prepared query runs directly,
  // unless a transaction of Kysely's holds the one connection (across awaits) and this query is
  // not part of it: then it waits its turn through Kysely.
  registerSqlRunner(db, (name, compiled, values, executor) => {
    if (sqlite.inTransaction && !executor.isTransaction) return runThroughKysely(name, compiled, values, executor);
    try {
      const statement = statements.prepare(compiled.sql) as unknown as SQLite.Statement;
      const result: SqlResult = statement.reader ? { rows: statement.all(values), changes: 0 } : { rows: NO_ROWS, changes: statement.run(values).changes };
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  });
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    ping: async () => void sqlite.prepare('select 1').get(),
    close: () => db.destroy(),
  };
}

function openPostgres(options: DatabaseOptions): DatabaseHandle {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  // SQL text → statement name of every prepared query run here (see the runner below).
  const statementNames = new Map<string, string>();
  const pool = new pg.Pool({
    Client: namedStatementClient(statementNames),
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    // Keep the pool alive through a database restart: a broken idle client is dropped, not thrown.
    idleTimeoutMillis: 30_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    /* an idle client lost its connection; the pool replaces it on next use */
  });
  // A checked-out client has no listener of the pool's: if the server goes away while Kysely holds
  // it (between a transaction's statements, say), its 'error' event would be unhandled and kill the
  // process. The query in progress, if any, is rejected anyway, and the pool drops the dead client
  // on release, so there is nothing else to do here.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  // A prepared query is a named statement: PostgreSQL parses and plans it once per connection, not
  // on every call. Outside a transaction it runs on any pooled connection; inside one it must run
  // on the transaction's connection, which only Kysely holds, and the pool's client names it.
  registerSqlRunner(db, async (name, compiled, values, executor) => {
    if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, name);
    if (executor.isTransaction) return runThroughKysely(name, compiled, values, executor);
    const result = await pool.query({ name, text: compiled.sql, values });
    return { rows: result.rows, changes: result.rowCount ?? 0 };
  });
  return {
    db,
    dialect: 'postgres',
    ping: async () => void (await sql`select 1`.execute(db)),
    close: () => db.destroy(),
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url.startsWith('sqlite:')) return openSqlite(options.url);
  const handle = openPostgres(options);
  if (options.schema) await sql`create schema if not exists ${sql.id(options.schema)}`.execute(handle.db);
  return handle;
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/**
 * Runs pending migrations; safe to call from several instances at once (Kysely takes a lock).
 * `upTo` stops after that migration (a migration's own test checks its work before later ones run).
 */
export async function migrateToLatest(handle: DatabaseHandle, upTo?: string): Promise<string[]> {
  // Kysely looks for its own migration tables in every schema of the database unless told which
  // one; a kysely_migration_lock in some other schema (another app, another test) would make it
  // skip creating ours and then fail. Pin them to the schema our unqualified tables land in.
  const migrationTableSchema =
    handle.dialect === 'postgres'
      ? ((await sql<{ schema: string | null }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema ?? undefined)
      : undefined;
  const migrator = new Migrator({ db: handle.db, provider, migrationTableSchema });
  setMigratingSqlite(handle.sqlite ?? null);
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest()).finally(() => setMigratingSqlite(null));
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
