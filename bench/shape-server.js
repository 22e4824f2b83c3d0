// Target (a'): the floor of Gatehouse's answer. The same bare Fastify as hello-server.js, but its
// one route answers like GET /v1/users/me does: the same 8 extra headers (request id, nosniff,
// no-store, the IETF and X-RateLimit-* rate-limit headers) and a body of the same shape and size,
// and it is loaded with the same ≈600-byte Authorization header. No logger, no hooks, no auth, no
// limiter: what any server must pay to send that answer on this machine.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const serverPackage = fileURLToPath(new URL('../server/package.json', import.meta.url));
const require = createRequire(serverPackage);
const Fastify = require('fastify');

const me = {
  id: 'usr_01m80qpzryezz88fvtr30cqsp7', email: 'bench-account@example.com', name: 'Bench account',
  created_at: '2026-11-22T04:20:00.414Z', updated_at: '2026-11-22T04:20:00.414Z', tier: 'enterprise', role: 'user',
  email_verified: false, limits: { per_minute: 1000000000, per_day: 2147483647, streams: 50 },
  personal_organization_id: 'org_01m80qpzrz4k7d2hx0q6v9b1ne', organization: { id: 'org_01m80qpzrz4k7d2hx0q6v9b1ne', role: 'owner' },
};
const app = Fastify({ logger: false });
let n = 0;
app.get('/', async (_request, reply) => {
  n++;
  reply.header('x-request-id', `req_01m80qq3txe31a2nk12t${String(n % 1e6).padStart(6, '0')}`);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', 'no-store');
  reply.header('ratelimit-policy', '"minute";q=1000000000;w=60, "day";q=2147483647;w=86400');
  reply.header('ratelimit', `"minute";r=${999999999 - (n % 1000)};t=1`);
  reply.header('x-ratelimit-limit', '1000000000');
  reply.header('x-ratelimit-remaining', String(999999999 - (n % 1000)));
  reply.header('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + 1));
  return { ...me };
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
