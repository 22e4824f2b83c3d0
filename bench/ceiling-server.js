// The ceiling of each platform route: a bare Fastify server, in a process of its own, doing the
// same SQL as Gatehouse on the same database, with prepared statements and nothing else (no
// authentication, no limiter, no hooks, no logger, no validation): the routes of
// lib/ceiling-routes.js, which the in-process reference (lib/in-process-reference.js) serves too.
// It answers for one organization, CEILING_ORG_ID (on a database from before organizations, for
// CEILING_USER_ID). Run from the repository root with `node --import tsx bench/ceiling-server.js`
// (ids come from the server's own kernel/ids.ts, core/ids.ts before the kernel, so what it writes
// sorts among Gatehouse's rows as theirs do).
//   CEILING_DATABASE_URL  sqlite:<file> or postgres://…  (the database Gatehouse migrated)
//   CEILING_ORG_ID        the organization every route answers for (the bench account's personal one)
//   CEILING_USER_ID       the account, on a database from before organizations
//   PORT, HOST
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { idsModule, openCeilingStore, registerCeilingRoutes } from './lib/ceiling-routes.js';

const serverPackage = fileURLToPath(new URL('../server/package.json', import.meta.url));
const require = createRequire(serverPackage);
const Fastify = require('fastify');
const { newId } = await import(idsModule(fileURLToPath(new URL('../server', import.meta.url))));

const url = process.env.CEILING_DATABASE_URL;
if (!url) throw new Error('CEILING_DATABASE_URL is required');
const store = { current: await openCeilingStore(url, { orgId: process.env.CEILING_ORG_ID, userId: process.env.CEILING_USER_ID }, { require, newId }) };

const app = Fastify({ logger: false });
registerCeilingRoutes(app, store, { current: newId });
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
