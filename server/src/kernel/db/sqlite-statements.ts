import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every query it runs; preparing costs more than running the
 * small indexed reads the API does most. The SQL text of a query is the same on every call (values
 * are bound parameters), so statements are prepared once and reused from a bounded map.
 * better-sqlite3 runs a statement to completion synchronously (all/run); one still being iterated
 * (Kysely's stream(), unused today) is `busy`, and then a fresh one is prepared instead.
 */
const MAX_STATEMENTS = 500;

export function withPreparedStatements(sqlite: SqliteDatabase): KyselySqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined || statement.busy) {
        statement = sqlite.prepare(sql);
        // Dynamic SQL (e.g. IN lists of varying length) must not grow the map without bound.
        if (statements.size >= MAX_STATEMENTS) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
