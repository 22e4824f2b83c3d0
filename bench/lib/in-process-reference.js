// The in-process reference: preloaded into the Gatehouse server process (`node --import` this file,
// see lib/gatehouse.js), it serves the ceiling's routes (lib/ceiling-routes.js, the same code as
// bench/ceiling-server.js) and the bare hello-world on another port, on a bare Fastify instance of
// the server's own Fastify: no hooks, no plugins, no logger. Measured beside Gatehouse and the
// ceiling in its own process, it separates what Gatehouse's features cost (Gatehouse ÷ this) from
// what being inside the big process costs (this ÷ the separate ceiling: a larger heap, Gatehouse's
// timers and metrics, a busier event loop).
//
// Nothing happens unless BENCH_REFERENCE_PORT is set. The server's code is not touched: the
// process gets a second listener, and, only between a trace's start and its stop, wrappers around
// the drivers' query methods (see "Tracing" below).
//
//   BENCH_REFERENCE_PORT   the reference's port (on HOST, default 127.0.0.1)
//   PORT                   Gatehouse's port: the requests a trace follows
//
// Routes besides the ceiling's (`/healthz` included) and `GET /` (hello-world):
//   POST /bench/open   { orgId?, userId? }: opens the store on DATABASE_URL (the database Gatehouse
//                      has migrated by then) for the bench account, and loads the server's ids
//                      module (dist/kernel/ids.js; in a server from before the build, its ids.ts,
//                      tsx being registered by then); the ceiling's routes answer only after it
//   POST /bench/trace/start, POST /bench/trace/stop: the critical path of requests, below
//   POST /bench/log-line { lines }: what one access line costs, below
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { idsModule, openCeilingStore, registerCeilingRoutes } from './ceiling-routes.js';

const referencePort = Number(process.env.BENCH_REFERENCE_PORT);
if (referencePort) await start();

async function start() {
  // The measured server's own packages (its cwd is the root it runs from): the same Fastify,
  // better-sqlite3 and pg module instances as Gatehouse's.
  const serverRoot = join(process.cwd(), 'server');
  const require = createRequire(join(serverRoot, 'package.json'));
  const Fastify = require('fastify');
  const store = { current: null };
  const ids = { current: null };

  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  registerCeilingRoutes(app, store, ids);
  app.post('/bench/open', async (request) => {
    const { newId } = await import(idsModule(serverRoot));
    ids.current = newId;
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set');
    await store.current?.close();
    store.current = await openCeilingStore(url, request.body ?? {}, { require, newId });
    return { opened: true };
  });
  const tracer = createTracer(require);
  app.post('/bench/trace/start', async () => {
    tracer.start();
    return { tracing: true };
  });
  app.post('/bench/trace/stop', async () => tracer.stop());
  app.post('/bench/log-line', async (request) => logLineCost(serverRoot, request.body?.lines ?? 10_000, request.body?.repeats ?? 5));
  await app.listen({ port: referencePort, host: process.env.HOST || '127.0.0.1' });
}

/**
 * What one access line costs, apart from any load: the server's own logger (createLogger, as
 * main.ts builds it, writing to this process's stdout) and the access-line writer the onResponse
 * hook uses (http/access-log.ts; on an older server, the per-request child), writing that line
 * `lines` times in a row; the CPU of the process per line at LOG_LEVEL=info less the same loop at warn (no line written), `repeats` times alternately, medians. A loop runs
 * warm: a request pays more for the same code (cold caches after the rest of its work).
 */
async function logLineCost(serverRoot, lines, repeats) {
  // The first path of each that exists: the server's layout, or one from before the kernel.
  const load = (...paths) => {
    const found = paths.map((p) => join(serverRoot, 'src', ...p.split('/'))).find((p) => existsSync(p));
    return found ? import(pathToFileURL(found).href) : Promise.reject(new Error(`none of ${paths.join(', ')}`));
  };
  let createLogger;
  // The line as the server writes it (http/access-log.ts); a server from before it made a child per request.
  let lineWriter;
  try {
    ({ createLogger } = await load('kernel/logger.ts', 'infra/logger.ts'));
    const accessLog = await load('http/access-log.ts').catch(() => undefined);
    if (accessLog) {
      lineWriter = (root) => { const write = accessLog.createAccessLog(root); return (reqId) => write({ reqId, method: 'GET', url: '/v1/usage', status: 200, ms: 1 }); };
    } else {
      const { deferredChildLoggerFactory: childFactory } = await load('http/request-logger.ts');
      lineWriter = (root) => (reqId) => childFactory(root, { reqId }, {}, undefined).info({ method: 'GET', url: '/v1/usage', status: 200, ms: 1 }, 'request');
    }
  } catch (error) {
    return { error: `the server's logger modules moved: ${error.message}` };
  }
  if (typeof createLogger !== 'function') return { error: 'createLogger not found' };
  const run = (level) => {
    const root = createLogger(level);
    const write = lineWriter(root);
    const started = process.cpuUsage();
    for (let i = 0; i < lines; i++) write(`req_01bench${String(i).padStart(18, '0')}`);
    const used = process.cpuUsage(started);
    root.flush?.();
    return (used.user + used.system) / lines;
  };
  const info = [];
  const warn = [];
  for (let r = 0; r < repeats; r++) {
    warn.push(run('warn'));
    info.push(run('info'));
  }
  const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const each = info.map((v, i) => v - warn[i]);
  return { lines, repeats, infoUs: med(info), warnUs: med(warn), lineUs: med(each), minUs: Math.min(...each), maxUs: Math.max(...each) };
}

// Tracing. Between start and stop, every HTTP request the process serves (on either port) is
// recorded with its window, from the request's arrival ('http.server.request.start') to the
// answer's last byte handed to the socket (the response's 'finish'); and every database and Redis
// operation with its own: a pg query from its call to its result (pg sends one query at a time per
// connection: one round trip), an ioredis command from its sending to its reply (commands sent
// together, a pipeline or ioredis's auto-pipelining, overlap and so count as one round trip), a
// better-sqlite3 statement (synchronous: a statement, not a round trip). The wrappers exist only
// while tracing, so the measured rounds run the drivers untouched.

function createTracer(require) {
  let requests = [];
  let ops = [];
  let restore = null;
  let subscribed = false;
  const onRequest = ({ request, response, server }) => {
    const entry = { port: server.address()?.port, method: request.method, url: request.url, start: performance.now(), end: null, status: null };
    requests.push(entry);
    response.once('finish', () => {
      entry.end = performance.now();
      entry.status = response.statusCode;
    });
  };

  const record = (kind, text) => {
    const op = { kind, text: String(text ?? '').slice(0, 120), start: performance.now(), end: null };
    ops.push(op);
    return () => (op.end ??= performance.now());
  };

  function patchAll() {
    const undo = [];
    const patch = (proto, name, wrap) => {
      const original = proto[name];
      if (typeof original !== 'function') return;
      proto[name] = wrap(original);
      undo.push(() => (proto[name] = original));
    };
    // pg: Client.prototype.query, whatever its form (promise, callback, submittable).
    try {
      const pg = require('pg');
      patch(pg.Client.prototype, 'query', (original) => function (config) {
        const text = typeof config === 'string' ? config : config?.text;
        const done = record('pg', text);
        const args = [...arguments];
        const last = args.length - 1;
        if (typeof args[last] === 'function') {
          const cb = args[last];
          args[last] = function (...a) {
            done();
            return cb.apply(this, a);
          };
        }
        const result = original.apply(this, args);
        if (result && typeof result.then === 'function') result.then(done, done);
        else if (result && typeof result.once === 'function') {
          // a submittable (pg's Query): 'end' or 'error', whether or not it has a callback
          result.once('end', done);
          result.once('error', done);
        }
        return result;
      });
    } catch {
      // no pg in this server's tree
    }
    // ioredis: every command goes through Redis.prototype.sendCommand (pipelines and
    // auto-pipelining included), its reply settling command.promise.
    try {
      const { Redis } = require('ioredis');
      patch(Redis.prototype, 'sendCommand', (original) => function (command, stream) {
        const done = record('redis', command?.name);
        command?.promise?.then(done, done);
        return original.call(this, command, stream);
      });
    } catch {
      // no ioredis
    }
    // better-sqlite3: a statement's run/get/all/iterate (synchronous).
    try {
      const SQLite = require('better-sqlite3');
      const probe = new SQLite(':memory:');
      const proto = Object.getPrototypeOf(probe.prepare('select 1'));
      probe.close();
      for (const name of ['run', 'get', 'all', 'iterate']) {
        patch(proto, name, (original) => function (...args) {
          const done = record('sqlite', this.source);
          try {
            return original.apply(this, args);
          } finally {
            done();
          }
        });
      }
    } catch {
      // no better-sqlite3
    }
    return () => undo.reverse().forEach((u) => u());
  }

  return {
    start() {
      requests = [];
      ops = [];
      restore ??= patchAll();
      if (!subscribed) subscribe('http.server.request.start', onRequest);
      subscribed = true;
    },
    stop() {
      if (subscribed) unsubscribe('http.server.request.start', onRequest);
      subscribed = false;
      restore?.();
      restore = null;
      // The bench sends one request at a time: each one's operations are those that start before
      // the next request arrives.
      const sorted = requests.sort((a, b) => a.start - b.start);
      const traced = sorted.map((r, i) => ({ ...r, ...criticalPath(r, ops, sorted[i + 1]?.start ?? Infinity) }));
      return { requests: traced.filter((r) => r.port !== referencePort || !r.url.startsWith('/bench/')), ops: ops.length };
    },
  };
}

/**
 * What one request waited on: the operations that started within its window and ended before its
 * answer was out (`during`), their round trips on the critical path (overlapping operations are
 * one: merged intervals, SQLite statements excluded as they make none), and the operations it left
 * running or started after its answer, before the next request (`after`: off the critical path).
 */
function criticalPath(request, ops, until) {
  const end = request.end ?? Infinity;
  const mine = ops.filter((o) => o.start >= request.start && o.start < until);
  const during = mine.filter((o) => o.end !== null && o.end <= end);
  const after = mine.filter((o) => o.end === null || o.end > end);
  const count = (list, kind) => list.filter((o) => o.kind === kind).length;
  const trips = (list) => {
    const sorted = list.filter((o) => o.kind !== 'sqlite').sort((a, b) => a.start - b.start);
    let n = 0;
    let reach = -Infinity;
    for (const o of sorted) {
      if (o.start > reach) n++;
      reach = Math.max(reach, o.end);
    }
    return n;
  };
  return {
    ms: request.end === null ? null : request.end - request.start,
    roundTrips: trips(during), pgTrips: trips(during.filter((o) => o.kind === 'pg')), redisTrips: trips(during.filter((o) => o.kind === 'redis')),
    pg: count(during, 'pg'), redis: count(during, 'redis'), sqlite: count(during, 'sqlite'),
    after: { pg: count(after, 'pg'), redis: count(after, 'redis'), sqlite: count(after, 'sqlite') },
    statements: during.map((o) => `${o.kind}: ${o.text}`),
  };
}
