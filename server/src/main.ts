import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDependencies } from './dependencies.js';
import { createMetrics } from './http/metrics.js';
import { startMetricsListener } from './http/metrics-listener.js';
import { createLogger } from './kernel/logger.js';

/** Process entry for `gatehouse serve`: config → dependencies → listen → graceful shutdown. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  for (const warning of config.warnings) logger.warn(warning);
  const deps = await createDependencies(config, { logger });
  const metrics = createMetrics();
  const app = await buildApp(deps, { loggerInstance: logger, metrics });
  await app.listen({ port: config.port, host: config.host });
  const scrape = config.metrics.port === null ? undefined : await startMetricsListener({ registry: metrics, ...config.metrics, port: config.metrics.port, publicUrl: config.publicUrl });
  logger.info({ url: config.publicUrl, database: deps.database.dialect, ...(scrape ? { metrics: `${config.metrics.host}:${scrape.port}` } : {}) }, 'gatehouse listening');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Never hang forever on a stuck connection: exit after 10 s whatever happens.
    setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await app.close();
      await scrape?.close();
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
