// Target (a): the ceiling. A bare Fastify hello-world in its own process, loaded from the server
// package's own dependency tree so it is exactly the Fastify version Gatehouse runs on.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const serverPackage = fileURLToPath(new URL('../server/package.json', import.meta.url));
const require = createRequire(serverPackage);
const Fastify = require('fastify');

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
