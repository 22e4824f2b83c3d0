import { startServer, type ServerProcess } from './server-process.js';
import { scratchPostgres } from './webhooks/process-helpers.js';

/** Suites of two instances need the real shared servers: they run when both are configured. */
export const twoInstancesAvailable = Boolean(process.env.DATABASE_URL?.startsWith('postgres') && process.env.REDIS_URL);

export interface TwoInstances {
  a: ServerProcess;
  b: ServerProcess;
  /** The throwaway database both serve, for suites that read or change it directly. */
  databaseUrl: string;
  /** Stops both processes and drops the database. */
  stop(): Promise<void>;
}

/**
 * Two `gatehouse serve` processes on one throwaway PostgreSQL database (named `prefix`_random, so
 * a leftover says which suite made it) and the one REDIS_URL, as behind a load balancer. `env`
 * adds to or overrides their environment.
 */
export async function startTwoInstances(prefix: string, env: Record<string, string> = {}): Promise<TwoInstances> {
  const database = await scratchPostgres(process.env.DATABASE_URL, prefix);
  const started: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((server) => server.stop()));
    await database.drop();
  };
  try {
    // Behind one load balancer, every instance has the same public URL (the tokens' issuer).
    const all = { DATABASE_URL: database.url, REDIS_URL: process.env.REDIS_URL!, PUBLIC_URL: 'https://gatehouse.example', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', LOG_LEVEL: 'warn', ...env };
    started.push(await startServer(all)); // the first migrates the new database; then the second
    started.push(await startServer(all));
  } catch (error) {
    await stop();
    throw error;
  }
  return { a: started[0]!, b: started[1]!, databaseUrl: database.url, stop };
}
