// What Fastify's own features cost per request, apart from any work: a hello-world served bare and
// with each feature the Gatehouse pipeline uses (an onRequest hook setting three headers, five more
// headers, an onResponse hook, a response schema, a request id of Gatehouse's shape, its server
// timeouts), then all of them, each in its own process, in the same interleaved rounds. The CPU
// per request is the server process's own (/proc); ratios to the bare server say how much of a
// small route's budget the framework spends before the route does anything.
//   npm run fastify-costs -w bench -- [--rounds 3] [--duration 3]
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { interleavedRounds } from './lib/load.js';
import { freePort, startProcess, stopAll, waitUntilServing } from './lib/processes.js';
import { markdown, stats } from './lib/report.js';

const FEATURES = {
  hook: 'one onRequest hook setting three headers (x-request-id, nosniff, no-store)',
  headers: 'five more headers (the RateLimit set)',
  'on-response': 'one onResponse hook (reading reply.elapsedTime)',
  schema: 'a response schema (fast-json-stringify)',
  'request-id': 'genReqId returning an id of Gatehouse shape',
  timeouts: "Gatehouse's server timeouts (connection, request, headers, 1 s checks)",
};

if (process.argv[2] === 'serve') {
  const require = createRequire(fileURLToPath(new URL('../server/package.json', import.meta.url)));
  const Fastify = require('fastify');
  const on = new Set(process.argv[3].split(',').filter(Boolean));
  const options = { logger: false };
  if (on.has('request-id')) {
    let n = 0;
    options.genReqId = () => `req_01jd4z3k8x2v6n9q7w5e${(n++).toString(36).padStart(6, '0')}`;
  }
  if (on.has('timeouts')) Object.assign(options, { connectionTimeout: 60_000, requestTimeout: 30_000, http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 }, return503OnClosing: true, forceCloseConnections: 'idle' });
  const app = Fastify(options);
  if (on.has('hook')) {
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', 'no-store');
      done();
    });
  }
  if (on.has('on-response')) app.addHook('onResponse', (request, reply, done) => void (reply.elapsedTime, done()));
  const schema = on.has('schema') ? { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } : undefined;
  // The headers are set in the handler, so that variant measures headers, not another hook.
  const withHeaders = on.has('headers');
  app.get('/', { schema }, async (request, reply) => {
    if (withHeaders) {
      reply.header('ratelimit-policy', '"minute";q=1000;w=60, "day";q=100000;w=86400');
      reply.header('ratelimit', '"minute";r=999;t=1');
      reply.header('x-ratelimit-limit', '1000');
      reply.header('x-ratelimit-remaining', '999');
      reply.header('x-ratelimit-reset', '1795619592');
    }
    return { hello: 'world' };
  });
  await app.listen({ port: Number(process.argv[4]), host: '127.0.0.1' });
} else {
  const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '3' } } });
  const variants = [['bare', ''], ...Object.keys(FEATURES).map((f) => [f, f]), ['all', Object.keys(FEATURES).join(',')]];
  const targets = [];
  try {
    for (const [id, features] of variants) {
      const port = await freePort();
      const server = startProcess(`fastify (${id})`, [fileURLToPath(import.meta.url), 'serve', features, String(port)], {}, undefined);
      await waitUntilServing(server, `http://127.0.0.1:${port}/`);
      targets.push({ id, mode: '—', label: id === 'bare' ? 'bare hello-world' : id === 'all' ? 'all of them' : FEATURES[id], url: `http://127.0.0.1:${port}/`, process: server });
    }
    const results = await interleavedRounds(targets, { rounds: Number(opts.rounds), duration: Number(opts.duration), warmup: 2, connections: 100, log: console.error });
    const bare = stats(results.bare, 'cpuUs').median;
    const rows = targets.map((t) => {
      const cpu = stats(results[t.id], 'cpuUs').median;
      return [t.id, t.label, Math.round(stats(results[t.id], 'rps').median).toLocaleString('en-US'), cpu.toFixed(1), t.id === 'bare' ? '—' : `${cpu >= bare ? '+' : '−'}${Math.abs(cpu - bare).toFixed(1)}`, `${((bare / cpu) * 100).toFixed(0)}%`];
    });
    console.log(markdown(['variant', 'what', 'req/s', 'CPU µs/req', 'Δ CPU vs bare', 'bare ÷ this (CPU)'], rows));
  } finally {
    await stopAll();
  }
}
