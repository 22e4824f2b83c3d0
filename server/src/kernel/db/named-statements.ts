import pg from 'pg';

/**
 * A pg client that sends the SQL of prepared queries (prepared-queries.ts) as named statements, so
 * PostgreSQL parses and plans each once per connection instead of on every call. Outside a
 * transaction the runner names them itself (pool.query); inside one, Kysely holds the connection
 * and sends `(text, values)`: this client, given to the pool as its `Client` (a pg.Pool option),
 * names every text the runner has registered in `names` and passes anything else through.
 */
export function namedStatementClient(names: ReadonlyMap<string, string>): typeof pg.Client {
  class NamedStatementClient extends pg.Client {
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      const query = super.query as (...args: unknown[]) => never;
      const name = typeof config === 'string' && Array.isArray(values) ? names.get(config) : undefined;
      if (name !== undefined) return query.call(this, { name, text: config, values }, callback);
      return query.call(this, config, values, callback);
    }
  }
  return NamedStatementClient;
}
