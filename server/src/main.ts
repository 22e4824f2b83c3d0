import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDependencies } from './dependencies.js';
import { createLogger } from './infra/logger.js';

/** Process entry for `gatehouse serve`: config → dependencies → listen → graceful shutdown. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const deps = await createDependencies(config, { logger });
  const app = await buildApp(deps, { loggerInstance: logger });
  await app.listen({ port: config.port, host: config.host });
  logger.info({ url: config.publicUrl, database: deps.database.dialect }, 'gatehouse listening');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Never hang forever on a stuck connection: exit after 10 s whatever happens.
    setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await app.close();
      await deps.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
