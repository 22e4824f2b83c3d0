// Target (a): the ceiling. A bare Fastify hello-world in its own process, loaded from the server
// package's own dependency tree so it is exactly the Fastify version Gatehouse runs on.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const serverPackage = fileURLToPath(new URL('../server/package.json', import.meta.url));
const require = createRequire(serverPackage);
const Fastify = require('fastify');

// ANCHOR_NEXT_TICK=1: keep one process.nextTick record alive, as Gatehouse's `serve` does
// (server/src/infra/next-tick-anchor.ts; docs/PERFORMANCE.md, "The idle-GC state").
if (process.env.ANCHOR_NEXT_TICK === '1') {
  const { executionAsyncResource } = await import('node:async_hooks');
  process.nextTick(() => {
    globalThis.nextTickAnchor = executionAsyncResource();
  });
}

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
