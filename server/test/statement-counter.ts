import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../src/kernel/db/database.js';

/**
 * Every SQL statement one database handle runs, for tests that must prove what a request does
 * NOT do (no write per request, no query on a cached path). It listens at the drivers, below
 * Kysely, so it sees everything: Kysely's queries and transactions, the prepared queries that run
 * straight on better-sqlite3, PostgreSQL's named statements.
 *
 *   const statements = await countStatements(t.deps.database);
 *   …
 *   expect(statements.writes('usage_counts')).toEqual([]);
 *   statements.stop();
 *
 * How it tells this handle's statements from others in the process (other apps, the harness's
 * own connection): it runs a marker query through the handle and remembers the better-sqlite3
 * database (SQLite) or the connection options, which carry the test's own schema (PostgreSQL),
 * that ran it. Background work of the same app (the webhook worker's polls, retention) is counted
 * too: filter by table.
 */
export interface StatementCounter {
  /** SQL text of every statement run since the start or the last reset, in order. */
  readonly statements: readonly string[];
  /** The statements that name `table` (as a word, any letter case). */
  touching(table: string): string[];
  /** INSERT, UPDATE, DELETE and UPSERT statements, all or those naming `table`. */
  writes(table?: string): string[];
  reset(): void;
  /** Stops counting (the driver patches go when the last counter stops). */
  stop(): void;
}

type Listener = (owner: unknown, text: string) => void;
const listeners = new Set<Listener>();
let restore: (() => void) | undefined;

function notify(owner: unknown, text: unknown): void {
  if (typeof text !== 'string') return;
  for (const listener of listeners) listener(owner, text);
}

/** Wraps the execution methods of better-sqlite3's Statement and pg's Client, once for all counters. */
function install(): void {
  if (restore) return;
  const probe = new SQLite(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const sqliteMethods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = sqliteMethods.map((name) => statementProto[name]!);
  sqliteMethods.forEach((name, i) => {
    const original = originals[i]!;
    statementProto[name] = function (this: { database: unknown; source: string }, ...args: unknown[]) {
      notify(this.database, this.source);
      return original.apply(this, args);
    };
  });
  const clientProto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const originalQuery = clientProto.query;
  clientProto.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    notify(this, typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text);
    return originalQuery.call(this, config, ...rest);
  };
  restore = () => {
    sqliteMethods.forEach((name, i) => (statementProto[name] = originals[i]!));
    clientProto.query = originalQuery;
    restore = undefined;
  };
}

const MARKER = 'gatehouse_statement_counter_marker';
const WRITE = /^\s*(with\b[\s\S]*?\b)?(insert|update|delete|replace)\b/i;

/** PostgreSQL clients of one pool share their connection options (with the test's search_path). */
const optionsOf = (client: unknown) => (client as { connectionParameters?: { options?: unknown } }).connectionParameters?.options;

export async function countStatements(database: DatabaseHandle): Promise<StatementCounter> {
  install();
  const statements: string[] = [];
  let belongs: ((owner: unknown) => boolean) | undefined;
  const listener: Listener = (owner, text) => {
    if (belongs === undefined) {
      if (!text.includes(MARKER)) return;
      if (database.dialect === 'sqlite') belongs = (o) => o === owner;
      else {
        const options = optionsOf(owner);
        belongs = (o) => o instanceof pg.Client && optionsOf(o) === options;
      }
      return;
    }
    if (belongs(owner)) statements.push(text);
  };
  listeners.add(listener);
  await sql.raw(`select 1 as ${MARKER}`).execute(database.db);
  if (belongs === undefined) {
    listeners.delete(listener);
    throw new Error('countStatements: the marker query was not seen at the driver');
  }
  const names = (table: string) => new RegExp(`\\b${table}\\b`, 'i');
  return {
    statements,
    touching: (table) => statements.filter((s) => names(table).test(s)),
    writes: (table) => statements.filter((s) => WRITE.test(s) && (table === undefined || names(table).test(s))),
    reset: () => void statements.splice(0),
    stop() {
      listeners.delete(listener);
      if (listeners.size === 0) restore?.();
    },
  };
}
