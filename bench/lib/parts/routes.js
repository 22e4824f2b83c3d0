// Every platform route against two references, in the same interleaved rounds: the ceiling, a bare
// Fastify server in its own process doing the same SQL on the same database
// (bench/ceiling-server.js), and the in-process reference, the same routes on a bare Fastify inside
// the Gatehouse process, on another port (lib/in-process-reference.js). Gatehouse ÷ in-process
// reference is what Gatehouse's features cost; in-process reference ÷ ceiling is the tax of the big
// process. Plus a mixed workload (70% reads, 20% message posts, 10% agent creates), the account
// reads against the hello-world (no SQL on their path), the cost of the access log line (a second
// Gatehouse process at LOG_LEVEL=info, production's default), the round trips of a write's
// critical path (traced in the process, one request at a time) and, on PostgreSQL + Redis, the p99
// of the writes at a fixed rate.
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from '../cleanup.js';
import { AGENTS_PAGE, prepareAccount } from '../gatehouse-account.js';
import { newDeployment, startAnotherServer, startGatehouse, teardown } from '../gatehouse.js';
import { expectStatus } from '../http.js';
import { interleavedRounds } from '../load.js';
import { openLoop, rawRequest } from '../open-loop.js';
import { freePort, startProcess, stopProcess, waitUntilServing } from '../processes.js';
import { int, markdown, median, ms, pct, ratio, stats, times, verdict } from '../report.js';
import { psql } from '../services.js';
import { MODE_NAMES } from './throughput.js';

/**
 * The issue's goals, on server CPU per request (medians over the rounds): Gatehouse ÷ its ceiling
 * (the separate process), per kind of route and mode; the account reads ÷ the hello-world; a
 * write's round trips and its p99 at a fixed rate on PostgreSQL + Redis; the access line's cost.
 */
export const ROUTE_GOALS = {
  cpu: { read: { embedded: 1.3, redis: 1.3 }, write: { embedded: 1.4, redis: 1.3 }, mixed: { embedded: 1.4 }, account: { embedded: 1.5, redis: 1.5 } },
  roundTrips: 2,
  p99: 2,
  logLineUs: 23,
};
export const READ_ROUTES = ['agent-get', 'agent-list', 'chat-list', 'messages-read'];
export const WRITE_ROUTES = ['message-post', 'agent-create'];
export const ACCOUNT_ROUTES = ['users-me', 'usage'];
/** The routes the access line is measured on (at LOG_LEVEL=info against this run's warn). */
export const LOG_ROUTES = ['usage', 'agent-get'];
const PAGE = AGENTS_PAGE;
export const ROUTE_LABELS = {
  'agent-get': 'GET /v1/agents/{id}', 'agent-list': `GET /v1/agents (${PAGE})`, 'chat-list': `GET /v1/chats (${PAGE})`,
  'messages-read': `GET /v1/chats/{id}/messages (${PAGE})`, 'message-post': 'POST /v1/chats/{id}/messages', 'agent-create': 'POST /v1/agents',
  mixed: 'mixed: 70% reads, 20% message posts, 10% agent creates', 'users-me': 'GET /v1/users/me', usage: 'GET /v1/usage',
};
/**
 * So that no cap refuses a write however long the run (caps are counters; see ARCHITECTURE.md).
 * The agents' cap under both its names: a server from before the rename (--server-root, --compare)
 * reads only AGENTS_PER_ACCOUNT; a newer one takes AGENTS_PER_ORGANIZATION and warns of the other.
 */
const NO_CAPS = { AGENTS_PER_ORGANIZATION: '10000000', AGENTS_PER_ACCOUNT: '10000000', MESSAGES_PER_CHAT: '10000000' };
/** Requests per write route traced one at a time (after a few untraced). */
const TRACED = 20;

/** One request of each route, as autocannon sends it; `ids` are the bench account's agent and chat. */
function routeRequests(ids) {
  const json = { 'content-type': 'application/json' };
  return {
    'agent-get': { label: ROUTE_LABELS['agent-get'], method: 'GET', path: `/v1/agents/${ids.agent}` },
    'agent-list': { label: ROUTE_LABELS['agent-list'], method: 'GET', path: `/v1/agents?limit=${PAGE}` },
    'chat-list': { label: ROUTE_LABELS['chat-list'], method: 'GET', path: `/v1/chats?limit=${PAGE}` },
    'messages-read': { label: ROUTE_LABELS['messages-read'], method: 'GET', path: `/v1/chats/${ids.chat}/messages?limit=${PAGE}` },
    'message-post': { label: ROUTE_LABELS['message-post'], method: 'POST', path: `/v1/chats/${ids.chat}/messages`, headers: json, body: JSON.stringify({ role: 'user', content: 'What is the weather in Lyon tomorrow?' }) },
    'agent-create': { label: ROUTE_LABELS['agent-create'], method: 'POST', path: '/v1/agents', headers: json, body: JSON.stringify({ name: 'Bench agent', model: 'gpt-4o', description: 'Made under load.' }) },
  };
}
/** What `--routes` picks from: every route, the mix, and the two account reads. */
export const ROUTE_IDS = ['agent-get', 'agent-list', 'chat-list', 'messages-read', 'message-post', 'agent-create', 'mixed', 'users-me', 'usage'];

/** Ten requests each connection sends in turn: 7 reads, 2 message posts, 1 agent create. */
const MIX = ['agent-get', 'agent-list', 'messages-read', 'chat-list', 'agent-get', 'messages-read', 'agent-list', 'message-post', 'message-post', 'agent-create'];

/** The command that profiles one route (the routes part's --profile), named where a goal is missed. */
export const profileCommand = (mode, route, extra = '') => `npm run bench -- --parts routes --profile --modes ${mode} --routes ${route}${extra} --rounds 1 --duration 15`;

/** The bench account with 20 agents, 20 chats on the first one and 20 messages in the first chat. */
async function prepareChats(deployment, account) {
  const { base } = deployment;
  const agents = await expectStatus(base, 'GET', `/v1/agents?limit=${PAGE}`, 200, { token: account.key });
  const agent = agents.json.data[0].id;
  const chats = [];
  for (let i = 0; i < PAGE; i++) chats.push((await expectStatus(base, 'POST', '/v1/chats', 201, { token: account.key, body: { agent_id: agent, title: `Bench chat ${i + 1}` } })).json.id);
  for (let i = 0; i < PAGE; i++) await expectStatus(base, 'POST', `/v1/chats/${chats[0]}/messages`, 201, { token: account.key, body: { role: i % 2 ? 'assistant' : 'user', content: `Message ${i + 1} of the bench chat.` } });
  return { agent, chat: chats[0] };
}

/** The ceiling answers for the account's personal organization (for the user on a server from before organizations). */
const owners = (account) => (account.orgId ? { orgId: account.orgId } : { userId: account.userId });

async function startCeiling(ctx, deployment, account) {
  const port = await freePort();
  const name = `ceiling (${deployment.name})`;
  const { orgId, userId } = owners(account);
  const owner = orgId ? { CEILING_ORG_ID: orgId } : { CEILING_USER_ID: userId };
  const ceiling = startProcess(name, ['--import', 'tsx', 'bench/ceiling-server.js'], { PORT: String(port), HOST: '127.0.0.1', CEILING_DATABASE_URL: deployment.env.DATABASE_URL, ...owner }, ctx.repoRoot);
  ctx.releases.push(onCleanup(name, () => stopProcess(ceiling)));
  await waitUntilServing(ceiling, `http://127.0.0.1:${port}/healthz`);
  return { base: `http://127.0.0.1:${port}`, process: ceiling };
}

async function startHello(ctx) {
  const port = await freePort();
  const hello = startProcess('bare fastify', ['bench/hello-server.js'], { PORT: String(port), HOST: '127.0.0.1' }, ctx.repoRoot);
  ctx.releases.push(onCleanup('bare Fastify', () => stopProcess(hello)));
  await waitUntilServing(hello, `http://127.0.0.1:${port}/`);
  return { id: 'hello', mode: '—', label: 'bare Fastify hello-world', url: `http://127.0.0.1:${port}/`, process: hello };
}

/** A target of autocannon: one route, or the mix (its `requests` cycle per connection). */
function target(id, mode, label, base, request, credential, processHandle, redis, extra = {}) {
  const headers = { ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...(request.headers ?? {}) };
  const common = { id, mode: MODE_NAMES[mode], label, process: processHandle, redis, headers, ...extra };
  if (request.mix) return { ...common, url: base, requests: request.mix.map((r) => ({ method: r.method, path: r.path, body: r.body, headers: { ...headers, ...(r.headers ?? {}) } })) };
  return { ...common, url: `${base}${request.path}`, method: request.method, body: request.body };
}

/**
 * A write at a fixed rate (`ctx.writeRate` req/s), open loop (lib/open-loop.js): latency from each
 * request's scheduled send, so a server that falls behind shows in every request due meanwhile.
 */
function fixedRateTarget(ctx, id, mode, label, base, request, credential, processHandle) {
  const headers = { ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...(request.headers ?? {}) };
  const bytes = rawRequest(base, { method: request.method, path: request.path, headers, body: request.body });
  return {
    id, mode: MODE_NAMES[mode], label, process: processHandle, fixedRate: true,
    measure: async (seconds) => {
      const m = await openLoop({ url: base, rate: ctx.writeRate, seconds, request: () => bytes, check: (status, body) => (status === 201 ? null : `${status} ${body.slice(0, 200)}`), process: processHandle });
      // A wrong answer fails the run; a server that cannot keep up with the rate is a result: its
      // p99 counts the requests it never answered as the slowest (Infinity past 1% of them).
      if (m.failed) throw new Error(`FAILED: ${MODE_NAMES[mode]} ${label}: ${m.failed} of ${m.asked} requests failed: ${m.problems.join('; ')}`);
      if (m.unanswered) {
        ctx.log(`bench: ${MODE_NAMES[mode]} ${label}: ${m.unanswered} of ${m.asked} not answered within 10 s of the last send (the rate was not sustained); a pause for the server to drain`);
        await sleep(5_000);
      }
      return { ...m, p99: m.p99Asked };
    },
  };
}

/**
 * A server's migrations: two servers share a database only when they agree on its schema. In
 * src/kernel/db/migrations, or src/infra/db/migrations in a server from before the kernel.
 */
async function migrationsOf(root) {
  const dir = ['kernel', 'infra'].map((d) => join(root, 'server', 'src', d, 'db', 'migrations')).find((d) => existsSync(d));
  if (!dir) throw new Error(`no migrations folder in ${root}/server/src (kernel/db or infra/db)`);
  return (await readdir(dir)).filter((f) => /^\d{4}-.*(?<!\.test)\.ts$/.test(f)).sort().join(' ');
}

/**
 * The critical path of the writes, one request at a time: Gatehouse's and the in-process
 * reference's (the ceiling's code), traced inside the process. Per route and server: the medians
 * of round trips (PostgreSQL and Redis together, operations in flight together counting once), of
 * statements and commands, and what was left for after the answer.
 */
async function traceWrites(deployment, account, requests, routes) {
  const ref = deployment.reference.base;
  const send = (base, r, token) => expectStatus(base, r.method, r.path, 201, { token, body: JSON.parse(r.body) });
  for (const route of routes) {
    for (let i = 0; i < 3; i++) {
      await send(deployment.base, requests[route], account.key);
      await send(ref, requests[route]);
    }
  }
  await expectStatus(ref, 'POST', '/bench/trace/start', 200);
  let trace = null;
  try {
    for (const route of routes) {
      for (let i = 0; i < TRACED; i++) {
        await send(deployment.base, requests[route], account.key);
        await send(ref, requests[route]);
      }
    }
  } finally {
    trace = (await expectStatus(ref, 'POST', '/bench/trace/stop', 200)).json; // the drivers unwrapped, whatever happened
  }
  const port = (base) => Number(new URL(base).port);
  const summary = {};
  for (const route of routes) {
    for (const [server, base] of [['gatehouse', deployment.base], ['reference', ref]]) {
      const path = requests[route].path;
      const traced = trace.requests.filter((r) => r.port === port(base) && r.method === requests[route].method && r.url === path && r.status === 201);
      if (traced.length < TRACED) throw new Error(`trace: ${traced.length} of ${TRACED} ${server} ${requests[route].label} requests seen`);
      const med = (f) => median(traced.map(f));
      const trips = traced.map((r) => r.roundTrips);
      const typical = traced.find((r) => r.roundTrips === Math.round(med((r) => r.roundTrips))) ?? traced[0];
      (summary[route] ??= {})[server] = {
        roundTrips: med((r) => r.roundTrips), min: Math.min(...trips), max: Math.max(...trips),
        pgTrips: med((r) => r.pgTrips), redisTrips: med((r) => r.redisTrips), pg: med((r) => r.pg), redis: med((r) => r.redis), sqlite: med((r) => r.sqlite),
        afterPg: med((r) => r.after.pg), afterRedis: med((r) => r.after.redis), afterSqlite: med((r) => r.after.sqlite), ms: med((r) => r.ms),
        statements: typical.statements,
      };
    }
  }
  return summary;
}

/**
 * One deployment of `root`'s server with the bench account, its agents, chats and messages, the
 * in-process reference opened on the same database, and the ceiling in its own process: the
 * references' targets of each route.
 */
async function prepareDeployment(ctx, mode, root, tag, { wanted, measured, withReference }) {
  const deployment = newDeployment(mode, root, `${MODE_NAMES[mode]} routes${tag}`);
  ctx.releases.push(onCleanup(`Gatehouse ${deployment.name}`, () => teardown(deployment)));
  const profileDir = withReference && ctx.profileRoot ? join(ctx.profileRoot, `routes-${mode}`) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  await startGatehouse(deployment, { env: NO_CAPS, reference: true, profileDir });
  if (profileDir) ctx.profiled.push({ dir: basename(profileDir), name: `${MODE_NAMES[mode]} routes (Gatehouse and its in-process reference)`, process: deployment.server });
  const account = await prepareAccount(deployment);
  const ids = await prepareChats(deployment, account);
  // Statistics of the tables as set up, so the planner does not plan for empty ones (autovacuum
  // would get there within a minute or so; all servers then read with the same statistics).
  if (mode === 'redis') await psql(deployment.database, 'analyze');
  await expectStatus(deployment.reference.base, 'POST', '/bench/open', 200, { body: owners(account) });
  const ceiling = await startCeiling(ctx, deployment, account);
  const requests = routeRequests(ids);
  const mix = { mix: MIX.map((r) => requests[r]) };
  const refs = { ceiling: {}, reference: {} };
  const both = [...measured, ...(wanted('mixed') ? ['mixed'] : [])];
  for (const route of both) {
    const request = route === 'mixed' ? mix : requests[route];
    const label = route === 'mixed' ? 'mixed workload' : request.label;
    refs.ceiling[route] = target(`${mode}:${route}:ceiling${tag}`, mode, `${label} (ceiling${tag})`, ceiling.base, request, null, ceiling.process, false);
    if (withReference) {
      refs.reference[route] = target(`${mode}:${route}:in-process${tag}`, mode, `${label} (in-process reference${tag})`, deployment.reference.base, request, null, deployment.server, false, { countServed: false });
    }
  }
  if (withReference && ACCOUNT_ROUTES.some(wanted)) {
    refs.reference.hello = target(`${mode}:hello:in-process${tag}`, mode, `bare Fastify hello-world (in-process reference${tag})`, deployment.reference.base, { method: 'GET', path: '/' }, null, deployment.server, false, { countServed: false });
  }
  return { deployment, account, requests, mix, refs };
}

/**
 * With --compare: each route of the other server against this checkout's, in the same rounds
 * (req/s and server CPU per request; per-round: the ratio within each round).
 */
function sideBySide(ctx, pairs, results) {
  if (ctx.servers.length < 2) return [];
  const rows = [];
  for (const p of pairs.filter((x) => x.server > 0)) {
    const base = pairs.find((x) => x.server === 0 && x.mode === p.mode && x.route === p.route);
    const [other, own] = [results[p.gatehouse.id], results[base.gatehouse.id]];
    const rps = ratio(other, own);
    const hasCpu = [...other, ...own].every((x) => typeof x.cpuUs === 'number');
    const cpu = hasCpu ? ratio(other, own, 'cpuUs') : null;
    rows.push([MODE_NAMES[p.mode], base.gatehouse.label, int(stats(own, 'rps').median), int(stats(other, 'rps').median), pct(rps.value), `${pct(rps.min)}–${pct(rps.max)}`,
      hasCpu ? `${stats(own, 'cpuUs').median.toFixed(0)} / ${stats(other, 'cpuUs').median.toFixed(0)}` : 'n/a', cpu ? `${pct(cpu.value)} (${pct(cpu.min)}–${pct(cpu.max)})` : 'n/a']);
  }
  const tag = ctx.servers[1].tag.trim();
  return [{
    title: `Side by side: ${tag} ÷ this server (${ctx.servers[0].root}), same rounds`,
    text: markdown(['mode', 'route', 'req/s', `req/s ${tag}`, 'ratio', 'per-round', `server CPU µs/req (this / ${tag})`, 'CPU ratio (per-round)'], rows),
  }];
}

const cpuKnown = (...lists) => lists.every((rs) => rs && rs.every((x) => typeof x.cpuUs === 'number'));
const cpuMedian = (rs) => stats(rs, 'cpuUs').median;
const us = (v) => (v === null || v === undefined ? 'n/a' : v < 10 ? v.toFixed(1) : v.toFixed(0));
const rangeOf = (r, format = times) => `${format(r.min)}–${format(r.max)}`;

/** Differences within each round (a − b), their median and range. */
function difference(a, b, field = 'cpuUs') {
  const each = a.map((r, i) => r[field] - b[i][field]);
  return { value: median(each), min: Math.min(...each), max: Math.max(...each) };
}

export async function runRoutes(ctx) {
  ctx.releases = [];
  ctx.profiled = [];
  const hello = await startHello(ctx);
  const targets = [hello];
  const pairs = [];
  const extras = []; // per mode: the access-line targets and the fixed-rate writes
  const traces = {};
  const logLines = {}; // per mode: one access line's CPU in a loop, in the server process
  const wanted = (id) => ctx.routeIds?.has(id) ?? true;
  const measured = Object.keys(routeRequests({})).filter(wanted);
  const schemas = await Promise.all(ctx.servers.map((s) => migrationsOf(s.root)));
  for (const mode of ctx.modes) {
    const redis = mode === 'redis';
    let shared = null;
    // This checkout's server, then (--compare) another version's: on the same data and ceiling when
    // both have the same migrations; else (a release from before a schema change) on a database of
    // its own, set up the same way through the API, against a ceiling of its own.
    for (const [i, server] of ctx.servers.entries()) {
      const tag = server.tag;
      const own = i === 0 || schemas[i] !== schemas[0];
      const setup = own ? await prepareDeployment(ctx, mode, server.root, tag, { wanted, measured, withReference: i === 0 }) : shared;
      if (i === 0) shared = setup;
      if (own) targets.push(...Object.values(setup.refs.ceiling));
      if (i === 0) targets.push(...Object.values(setup.refs.reference));
      else if (!own) ctx.log(`bench: ${server.root}/server has the same migrations: a second process on the same database and ceiling`);
      const { account, requests, mix, refs } = setup;
      const gatehouse = own ? setup.deployment : await startAnotherServer(setup.deployment, server.root, `${setup.deployment.name}${tag}`);
      if (!own) ctx.releases.push(onCleanup(`Gatehouse ${gatehouse.name}`, () => teardown(gatehouse)));
      // An access token of this process's own signing key (without GATEHOUSE_SECRET each process keeps its own).
      const loginTo = async (base) => (await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: account.email, password: account.password } })).json.access_token;
      const token = own ? account.token : await loginTo(gatehouse.base);
      const reference = i === 0 ? refs.reference : {};
      for (const route of measured) {
        const request = requests[route];
        const gh = target(`${mode}:${route}${tag}`, mode, `${request.label}${tag}`, gatehouse.base, request, account.key, gatehouse.server, redis);
        targets.push(gh);
        pairs.push({ mode, route, server: i, what: `${request.label}${tag}`, gatehouse: gh, ceiling: refs.ceiling[route], reference: reference[route] });
      }
      if (wanted('mixed')) {
        const ghMix = target(`${mode}:mixed${tag}`, mode, `mixed workload (70/20/10)${tag}`, gatehouse.base, mix, account.key, gatehouse.server, redis);
        targets.push(ghMix);
        pairs.push({ mode, route: 'mixed', server: i, what: `${ROUTE_LABELS.mixed}${tag}`, gatehouse: ghMix, ceiling: refs.ceiling.mixed, reference: reference.mixed });
      }
      const accountRequests = { 'users-me': { method: 'GET', path: '/v1/users/me', credential: token }, usage: { method: 'GET', path: '/v1/usage', credential: account.key } };
      for (const id of ACCOUNT_ROUTES.filter(wanted)) {
        const { credential, ...request } = accountRequests[id];
        const t = target(`${mode}:${request.path}${tag}`, mode, `GET ${request.path}${tag}`, gatehouse.base, request, credential, gatehouse.server, redis);
        targets.push(t);
        pairs.push({ mode, route: id, server: i, what: `GET ${request.path} ÷ bare Fastify hello-world${tag}`, gatehouse: t, ceiling: hello, reference: reference.hello });
      }
      if (i > 0) continue;

      // The critical path of the writes, traced one request at a time before any load.
      const writes = WRITE_ROUTES.filter(wanted);
      if (writes.length) {
        traces[mode] = await traceWrites(setup.deployment, account, requests, writes);
        for (const route of writes) {
          const t = traces[mode][route];
          ctx.log(`bench: ${MODE_NAMES[mode]} ${requests[route].label}: ${t.gatehouse.roundTrips} round trips on the critical path (reference ${t.reference.roundTrips}): ${t.gatehouse.statements.join(' · ')}`);
        }
      }
      // The access line: a second process on the same data at LOG_LEVEL=info (the production
      // default) against this one at warn, on the same routes in the same rounds.
      const logRoutes = LOG_ROUTES.filter(wanted);
      if (logRoutes.length) {
        const cost = (await expectStatus(setup.deployment.reference.base, 'POST', '/bench/log-line', 200, { body: { lines: 10_000, repeats: 5 } })).json;
        logLines[mode] = cost;
        ctx.log(`bench: ${MODE_NAMES[mode]} one access line in a loop: ${cost.error ?? `${cost.lineUs.toFixed(1)} µs of CPU (${cost.minUs.toFixed(1)}–${cost.maxUs.toFixed(1)})`}`);
        const profileDir = ctx.profileRoot ? join(ctx.profileRoot, `routes-${mode}-info`) : undefined;
        if (profileDir) await mkdir(profileDir, { recursive: true });
        const nodeArgs = setup.deployment.nodeArgs.filter((a) => !a.startsWith('--cpu-prof')).concat(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
        const info = await startAnotherServer(setup.deployment, server.root, `${setup.deployment.name} LOG_LEVEL=info`, { env: { LOG_LEVEL: 'info' }, nodeArgs });
        ctx.releases.push(onCleanup(`Gatehouse ${info.name}`, () => teardown(info)));
        if (profileDir) ctx.profiled.push({ dir: basename(profileDir), name: `${MODE_NAMES[mode]} routes, LOG_LEVEL=info`, process: info.server });
        for (const route of logRoutes) {
          const base = pairs.find((p) => p.mode === mode && p.server === 0 && p.route === route).gatehouse;
          const request = route === 'usage' ? accountRequests.usage : { ...requests[route], credential: account.key };
          const { credential, ...rest } = request;
          // This process served nothing before: a longer warm-up, as the other's setup and traces warmed it.
          const t = target(`${mode}:${route}:info`, mode, `${base.label}, LOG_LEVEL=info`, info.base, rest, credential, info.server, redis, { warmup: ctx.schedule.warmup * 3 });
          targets.push(t);
          extras.push({ kind: 'log', mode, route, info: t, warn: base });
        }
      }
      // PostgreSQL + Redis: the writes at a fixed rate, Gatehouse against the ceiling.
      if (redis && ctx.writeRate > 0) {
        for (const route of writes) {
          const ceilingBase = new URL(refs.ceiling[route].url).origin;
          const g = fixedRateTarget(ctx, `${mode}:${route}:rate`, mode, `${requests[route].label} at ${ctx.writeRate} req/s`, gatehouse.base, requests[route], account.key, gatehouse.server);
          const c = fixedRateTarget(ctx, `${mode}:${route}:rate:ceiling`, mode, `${requests[route].label} at ${ctx.writeRate} req/s (ceiling)`, ceilingBase, requests[route], null, refs.ceiling[route].process);
          targets.push(g, c);
          extras.push({ kind: 'rate', mode, route, gatehouse: g, ceiling: c });
        }
      }
    }
  }

  const started = Number(process.hrtime.bigint() / 1000n);
  const results = await interleavedRounds(targets, { ...ctx.schedule, connections: ctx.connections, redisProbe: ctx.redisProbe, served: ctx.served, log: ctx.log });
  const window = [started, Number(process.hrtime.bigint() / 1000n)];
  const goals = [];
  const goal = (id, what, r, limit, { format = times, direction = 'at most', profile, unit = '×' } = {}) => {
    const v = verdict(r, limit, direction);
    goals.push({ id, what, measured: format(r.value), rounds: rangeOf(r, format), goal: `${direction === 'at most' ? '≤' : '≥'} ${limit}${unit}`, verdict: v, profile: v.met ? undefined : profile });
    return v;
  };

  // The CPU table: Gatehouse, the in-process reference, the ceiling; features and process tax apart.
  const rows = pairs.map((p) => {
    const [g, c] = [results[p.gatehouse.id], results[p.ceiling.id]];
    const f = p.reference ? results[p.reference.id] : null;
    const kind = READ_ROUTES.includes(p.route) ? 'read' : WRITE_ROUTES.includes(p.route) ? 'write' : p.route === 'mixed' ? 'mixed' : 'account';
    const limit = ROUTE_GOALS.cpu[kind][p.mode];
    let goalText = '';
    if (cpuKnown(g, c)) {
      const total = ratio(g, c, 'cpuUs');
      if (limit !== undefined && p.server === 0) {
        const base = kind === 'account' ? 'the bare Fastify hello-world' : 'its ceiling';
        const v = goal(`cpu:${p.mode}:${p.route}`, `${MODE_NAMES[p.mode]} ${ROUTE_LABELS[p.route]}: server CPU ÷ ${base}'s`, total, limit, { profile: profileCommand(p.mode, p.route) });
        goalText = `≤ ${limit}×: ${v.text}`;
      }
      const features = f && cpuKnown(f) ? ratio(g, f, 'cpuUs') : null;
      const tax = f && cpuKnown(f) ? ratio(f, c, 'cpuUs') : null;
      const redisCpu = g.every((x) => typeof x.redisCpuUs === 'number') ? ` (+${us(stats(g, 'redisCpuUs').median)} Redis)` : '';
      return [MODE_NAMES[p.mode], p.what, `${int(stats(g, 'rps').median)} / ${f ? int(stats(f, 'rps').median) : '–'} / ${int(stats(c, 'rps').median)}`,
        `${us(cpuMedian(g))}${redisCpu}`, f ? us(cpuMedian(f)) : '–', us(cpuMedian(c)),
        features ? `${times(features.value)} (${rangeOf(features)})` : '–', tax ? `${times(tax.value)} (${rangeOf(tax)})` : '–',
        `${times(total.value)} (${rangeOf(total)})`, goalText];
    }
    return [MODE_NAMES[p.mode], p.what, `${int(stats(g, 'rps').median)} / – / ${int(stats(c, 'rps').median)}`, 'n/a', 'n/a', 'n/a', '–', '–', '–', ''];
  });
  const sections = [{
    title: `Routes: server CPU per request against the in-process reference and the ceiling (${ctx.connections} connections, API key; users/me: access token; their references: the hello-world)`,
    text: markdown(['mode', 'route', 'req/s (G / in-process / ceiling)', 'CPU µs/req Gatehouse', 'in-process reference', 'ceiling (own process)',
      'features: G ÷ in-process', 'process tax: in-process ÷ ceiling', 'G ÷ ceiling (per-round)', 'goal'], rows) +
      '\n\nCPU: the server process\'s user + system time per request (medians over the rounds; in brackets the range of the ratio within each round). ' +
      'The in-process reference is the ceiling\'s code (and the hello-world) on a bare Fastify inside the Gatehouse process, on another port: ' +
      'Gatehouse ÷ it is what the features cost, it ÷ the ceiling what the big process costs.',
  }];

  // Round trips of the writes' critical path.
  const traceRows = [];
  for (const [mode, routes] of Object.entries(traces)) {
    for (const [route, t] of Object.entries(routes)) {
      for (const server of ['gatehouse', 'reference']) {
        const s = t[server];
        traceRows.push([MODE_NAMES[mode], ROUTE_LABELS[route], server === 'gatehouse' ? 'Gatehouse' : 'ceiling\'s code (in-process)', `${s.roundTrips} (${s.min}–${s.max})`,
          `${s.pg} / ${s.redis} / ${s.sqlite}`, `${s.afterPg} / ${s.afterRedis} / ${s.afterSqlite}`, ms(s.ms), s.statements.join(' · ') || '–']);
      }
      if (mode === 'redis') {
        const s = t.gatehouse;
        const r = { value: s.roundTrips, min: s.min, max: s.max };
        goal(`trips:${mode}:${route}`, `${MODE_NAMES[mode]} ${ROUTE_LABELS[route]}: round trips (PostgreSQL + Redis) on the critical path`, r, ROUTE_GOALS.roundTrips,
          { format: (n) => String(n), unit: '', profile: `the statements are listed in the round-trip table above (${s.statements.length} on the path)` });
      }
    }
  }
  if (traceRows.length) {
    sections.push({
      title: `Writes: round trips on the critical path (${TRACED} requests each, one at a time, traced inside the process)`,
      text: markdown(['mode', 'route', 'server', 'round trips, median (min–max)', 'on the path: pg / Redis / SQLite statements', 'after the answer: pg / Redis / SQLite', 'ms', 'on the path (a median request)'], traceRows, [0, 1, 2, 7]) +
        '\n\nA round trip: a PostgreSQL query (pg sends one at a time per connection) or a Redis reply awaited; operations in flight together count once. ' +
        'SQLite statements make none. "After the answer": started during the request or before the next one, finished after its answer was sent (off the critical path).',
    });
  }

  // The access line, and the writes at a fixed rate.
  const logRows = [];
  const rateRows = [];
  for (const e of extras) {
    if (e.kind === 'log') {
      const [i, w] = [results[e.info.id], results[e.warn.id]];
      if (!cpuKnown(i, w)) continue;
      const d = difference(i, w);
      const line = `${us(d.value)} µs (${us(d.min)}–${us(d.max)})`;
      const loop = logLines[e.mode];
      const loopText = !loop ? 'n/a' : loop.error ? loop.error : `${us(loop.lineUs)} µs (${us(loop.minUs)}–${us(loop.maxUs)})`;
      logRows.push([MODE_NAMES[e.mode], e.warn.label, us(cpuMedian(w)), us(cpuMedian(i)), line, times(ratio(i, w, 'cpuUs').value), loopText]);
      if (e.route === 'usage') {
        goal(`log:${e.mode}`, `${MODE_NAMES[e.mode]} the access line (LOG_LEVEL=info, production's default, against warn) on GET /v1/usage: server CPU per request added`, d, ROUTE_GOALS.logLineUs,
          { format: (v) => `${us(v)} µs`, unit: ' µs', profile: `${profileCommand(e.mode, 'usage')} (profiles the LOG_LEVEL=info process too)` });
        goals.at(-1).goal = `< ${ROUTE_GOALS.logLineUs} µs`;
        if (loop && !loop.error) goals.at(-1).measured += ` (one line in a loop: ${us(loop.lineUs)} µs)`;
      }
    } else {
      const [g, c] = [results[e.gatehouse.id], results[e.ceiling.id]];
      const r = ratio(g, c, 'p99');
      const unanswered = (rs) => `${int(median(rs.map((x) => x.unanswered)))} (${int(Math.max(...rs.map((x) => x.unanswered)))})`;
      rateRows.push([MODE_NAMES[e.mode], ROUTE_LABELS[e.route], `${int(stats(g, 'rps').median)} / ${int(stats(c, 'rps').median)}`, `${ms(stats(g, 'p50').median)} / ${ms(stats(c, 'p50').median)}`,
        `${ms(stats(g, 'p99').median)} / ${ms(stats(c, 'p99').median)}`, `${times(r.value)} (${rangeOf(r)})`, `${ms(stats(g, 'max').median)} / ${ms(stats(c, 'max').median)}`,
        `${unanswered(g)} / ${unanswered(c)}`, cpuKnown(g, c) ? `${us(cpuMedian(g))} / ${us(cpuMedian(c))}` : 'n/a']);
      goal(`p99:${e.mode}:${e.route}`, `${MODE_NAMES[e.mode]} ${ROUTE_LABELS[e.route]}: p99 at ${ctx.writeRate} req/s ÷ the ceiling's`, r, ROUTE_GOALS.p99, { profile: profileCommand(e.mode, e.route) });
      const ceilingRate = stats(c, 'rps').median;
      if (Number.isFinite(stats(c, 'p99').median) && ceilingRate < 0.95 * ctx.writeRate) {
        // Both queued: the ratio compares two backlogs, not two servers at the rate asked.
        goals.at(-1).measured += ` (the ceiling too fell behind: ${int(ceilingRate)} of ${ctx.writeRate} req/s)`;
      }
      if (!Number.isFinite(stats(c, 'p99').median)) {
        // Neither kept up: the ratio says nothing. Judge it at a rate the ceiling sustains here.
        Object.assign(goals.at(-1), { measured: `the ceiling did not sustain ${ctx.writeRate} req/s either`, verdict: { met: false, judged: false, text: 'not judged' }, profile: 'on a quieter machine, or --write-rate lower' });
      }
    }
  }
  if (logRows.length) {
    sections.push({
      title: 'The access line: LOG_LEVEL=info (production\'s default: one line per request) against warn (none), a second process on the same data, same rounds',
      text: markdown(['mode', 'route', 'CPU µs/req at warn', 'at info', 'info − warn (per-round range)', 'info ÷ warn', 'one line in a loop (range)'], logRows) +
        '\n\nThe line goes to stdout, a pipe the bench reads (as a log collector would). Two processes of the same code can differ for life ' +
        '(docs/PERFORMANCE.md, "Process to process"): a difference of a few µs is within that. "One line in a loop": the server\'s own logger and ' +
        'per-request child logger writing the access line 10,000 times in the Gatehouse process, at info less at warn (5 times, median and range): ' +
        'the line\'s own cost, apart from the machine\'s noise (a warm loop: a request pays somewhat more).',
    });
  }
  if (rateRows.length) {
    sections.push({
      title: `Writes at a fixed ${ctx.writeRate} req/s (open loop: latency from each request's scheduled send)`,
      text: markdown(['mode', 'route', 'req/s (G / ceiling)', 'p50 ms', 'p99 ms', 'p99 ratio (per-round)', 'max ms', 'not answered, median (max) of a round', 'CPU µs/req'], rateRows) +
        `\n\nG / ceiling in each cell. p99 over every request asked, those never answered (no answer within 10 s of the round's last send: the server could not keep up) counted as the slowest: ∞ when they were over 1%. p50 and max are of the answered.`,
    });
  }
  sections.push(...sideBySide(ctx, pairs, results));
  return {
    sections,
    goals,
    json: { targets: targets.map(({ process: _p, headers: _h, measure: _m, ...t }) => t), results, traces },
    profile: { window, entries: ctx.profiled },
    release: async () => {
      for (const release of ctx.releases) await release();
    },
  };
}
