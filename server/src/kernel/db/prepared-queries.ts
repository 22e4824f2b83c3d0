import type { Compilable, CompiledQuery, DialectAdapter, Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Queries built once and bound per call. Kysely builds an immutable tree for every query, compiles
 * it to SQL and runs it through a chain of promises (connection, mutex, plugins): on a primary-key
 * read that is most of the request's own cost. A query whose shape never changes (the reads and
 * writes of the request paths) is therefore declared once, with named parameters; a call only
 * binds the values and runs the SQL compiled on first use:
 *
 *   const findAgent = preparedQuery((q, $: { userId: string; id: string }) =>
 *     q.selectFrom('agents').selectAll().where('user_id', '=', $.userId).where('id', '=', $.id));
 *   const row = await findAgent.first({ userId, id }, db);      // db, or the transaction `trx`
 *
 * Queries whose shape depends on the input (a PATCH of some fields, an IN list) stay on Kysely's
 * builder. How the SQL runs is the database's business: `database.ts` registers a runner per
 * database (`registerSqlRunner`) that takes the shortest correct way for its dialect.
 */
export interface PreparedQuery<P, R> {
  all(params: P, executor: Kysely<Database>): Promise<R[]>;
  first(params: P, executor: Kysely<Database>): Promise<R | undefined>;
  /** Runs a write without RETURNING; the number of rows it changed. */
  run(params: P, executor: Kysely<Database>): Promise<number>;
}

/** The result of running compiled SQL: rows (SELECT, RETURNING) and the rows a write changed. */
export interface SqlResult {
  rows: unknown[];
  changes: number;
}

/**
 * Runs one compiled statement with its values on `executor` (the database, or a transaction whose
 * connection it must use). `name` is stable per prepared query (PostgreSQL names its statements).
 */
export type SqlRunner = (name: string, compiled: CompiledQuery, values: unknown[], executor: Kysely<Database>) => Promise<SqlResult>;

/** A named parameter's stand-in while the query is built: Kysely binds it like any value. */
class Param {
  constructor(readonly name: string) {}
}
const placeholders = new Proxy({}, { get: (_, name) => new Param(String(name)) });

type Slot = { param: string } | { value: unknown };
interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
}

// A database and its transactions share one adapter object: the key to the database's runner
// and to the SQL compiled for its dialect.
const runners = new WeakMap<DialectAdapter, SqlRunner>();

export function registerSqlRunner(db: Kysely<Database>, runner: SqlRunner): void {
  runners.set(db.getExecutor().adapter, runner);
}

let nextName = 0;

export function preparedQuery<P extends object, R>(build: (q: Kysely<Database>, $: P) => Compilable<R>): PreparedQuery<P, R> {
  const name = `gh_${(nextName++).toString(36)}`;
  const compiledFor = new WeakMap<DialectAdapter, Compiled>();
  const compile = (executor: Kysely<Database>, adapter: DialectAdapter): Compiled => {
    const query = build(executor, placeholders as P).compile();
    const compiled = { query, slots: query.parameters.map((value): Slot => (value instanceof Param ? { param: value.name } : { value })) };
    compiledFor.set(adapter, compiled);
    return compiled;
  };
  const execute = (params: P, executor: Kysely<Database>): Promise<SqlResult> => {
    const adapter = executor.getExecutor().adapter;
    const { query, slots } = compiledFor.get(adapter) ?? compile(executor, adapter);
    const values = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      if ('value' in slot) values[i] = slot.value;
      else if ((values[i] = (params as Record<string, unknown>)[slot.param]) === undefined) {
        return Promise.reject(new Error(`prepared query: no value for $.${slot.param} (${query.sql})`));
      }
    }
    return (runners.get(adapter) ?? runThroughKysely)(name, query, values, executor);
  };
  return {
    all: async (params, executor) => (await execute(params, executor)).rows as R[],
    first: async (params, executor) => (await execute(params, executor)).rows[0] as R | undefined,
    run: async (params, executor) => (await execute(params, executor)).changes,
  };
}

/** Kysely's own execution: a transaction on PostgreSQL, or SQLite while another holds the connection. */
export async function runThroughKysely(_name: string, compiled: CompiledQuery, values: unknown[], executor: Kysely<Database>): Promise<SqlResult> {
  const result = await executor.executeQuery({ ...compiled, parameters: values });
  return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0) };
}

/** What a list of columns leaves out of the row type `P` (never when it names them all). */
type Unlisted<P, K extends readonly (keyof P)[]> = Exclude<keyof P, K[number]>;

/**
 * `{ column: $.column, … }` for an INSERT of whole rows (a spread of `$` would see no keys). The
 * list must name every column of the row type: a column added later and forgotten here is a type
 * error, not a value silently left out of the INSERT.
 */
export function eachParam<P extends object, const K extends readonly (keyof P)[]>(
  $: P,
  keys: K & ([Unlisted<P, K>] extends [never] ? unknown : { missingColumns: Unlisted<P, K> }),
): P {
  return Object.fromEntries(keys.map((key) => [key, $[key]])) as P;
}
