// Every platform route against its ceiling: Gatehouse and a bare Fastify server doing the same SQL
// on the same database (bench/ceiling-server.js), per mode, plus a mixed workload (70% reads, 20%
// message posts, 10% agent creates) against the same mix on the ceiling, all in the same
// interleaved rounds. /v1/users/me and /v1/usage have no SQL: their ceiling is bare Fastify's
// hello-world.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { onCleanup } from '../cleanup.js';
import { AGENTS_PAGE, prepareAccount } from '../gatehouse-account.js';
import { newDeployment, startAnotherServer, startGatehouse, teardown } from '../gatehouse.js';
import { expectStatus } from '../http.js';
import { interleavedRounds } from '../load.js';
import { freePort, startProcess, stopProcess, waitUntilServing } from '../processes.js';
import { int, markdown, ms, pct, ratio, stats, verdict } from '../report.js';
import { psql } from '../services.js';
import { MODE_NAMES } from './throughput.js';

/** The goals: route ÷ ceiling, per mode (message post has its own embedded goal). */
export const ROUTE_GOALS = { embedded: { route: 0.75, 'message-post': 0.6, hello: 0.75, mixed: 0.7 }, redis: { route: 0.6, 'message-post': 0.6, hello: 0.6, mixed: 0.7 } };
const PAGE = AGENTS_PAGE;
/**
 * So that no cap refuses a write however long the run (caps are counters; see ARCHITECTURE.md).
 * The agents' cap under both its names: a server from before the rename (--server-root, --compare)
 * reads only AGENTS_PER_ACCOUNT; a newer one takes AGENTS_PER_ORGANIZATION and warns of the other.
 */
const NO_CAPS = { AGENTS_PER_ORGANIZATION: '10000000', AGENTS_PER_ACCOUNT: '10000000', MESSAGES_PER_CHAT: '10000000' };

/** One request of each route, as autocannon sends it; `ids` are the bench account's agent and chat. */
function routeRequests(ids) {
  const json = { 'content-type': 'application/json' };
  return {
    'agent-get': { label: 'GET /v1/agents/{id}', method: 'GET', path: `/v1/agents/${ids.agent}` },
    'agent-list': { label: `GET /v1/agents (${PAGE})`, method: 'GET', path: `/v1/agents?limit=${PAGE}` },
    'chat-list': { label: `GET /v1/chats (${PAGE})`, method: 'GET', path: `/v1/chats?limit=${PAGE}` },
    'messages-read': { label: `GET /v1/chats/{id}/messages (${PAGE})`, method: 'GET', path: `/v1/chats/${ids.chat}/messages?limit=${PAGE}` },
    'message-post': { label: 'POST /v1/chats/{id}/messages', method: 'POST', path: `/v1/chats/${ids.chat}/messages`, headers: json, body: JSON.stringify({ role: 'user', content: 'What is the weather in Lyon tomorrow?' }) },
    'agent-create': { label: 'POST /v1/agents', method: 'POST', path: '/v1/agents', headers: json, body: JSON.stringify({ name: 'Bench agent', model: 'gpt-4o', description: 'Made under load.' }) },
  };
}
/** What `--routes` picks from: every route, the mix, and the two account reads. */
export const ROUTE_IDS = ['agent-get', 'agent-list', 'chat-list', 'messages-read', 'message-post', 'agent-create', 'mixed', 'users-me', 'usage'];

/** Ten requests each connection sends in turn: 7 reads, 2 message posts, 1 agent create. */
const MIX = ['agent-get', 'agent-list', 'messages-read', 'chat-list', 'agent-get', 'messages-read', 'agent-list', 'message-post', 'message-post', 'agent-create'];

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
async function startCeiling(ctx, deployment, account) {
  const port = await freePort();
  const name = `ceiling (${deployment.name})`;
  const owner = account.orgId ? { CEILING_ORG_ID: account.orgId } : { CEILING_USER_ID: account.userId };
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
function target(id, mode, label, base, request, credential, processHandle, redis) {
  const headers = { ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...(request.headers ?? {}) };
  const common = { id, mode: MODE_NAMES[mode], label, process: processHandle, redis, headers };
  if (request.mix) return { ...common, url: base, requests: request.mix.map((r) => ({ method: r.method, path: r.path, body: r.body, headers: { ...headers, ...(r.headers ?? {}) } })) };
  return { ...common, url: `${base}${request.path}`, method: request.method, body: request.body };
}

/** A server's migrations: two servers share a database only when they agree on its schema. */
async function migrationsOf(root) {
  return (await readdir(join(root, 'server', 'src', 'infra', 'db', 'migrations'))).filter((f) => /^\d{4}-.*(?<!\.test)\.ts$/.test(f)).sort().join(' ');
}

/**
 * One deployment of `root`'s server with the bench account, its agents, chats and messages, and
 * its ceiling on the same database: the targets of each route on the ceiling.
 */
async function prepareDeployment(ctx, mode, root, tag, { wanted, measured }) {
  const deployment = newDeployment(mode, root, `${MODE_NAMES[mode]} routes${tag}`);
  ctx.releases.push(onCleanup(`Gatehouse ${deployment.name}`, () => teardown(deployment)));
  await startGatehouse(deployment, { env: NO_CAPS });
  const account = await prepareAccount(deployment);
  const ids = await prepareChats(deployment, account);
  // Statistics of the tables as set up, so the planner does not plan for empty ones (autovacuum
  // would get there within a minute or so; both servers then read with the same statistics).
  if (mode === 'redis') await psql(deployment.database, 'analyze');
  const ceiling = await startCeiling(ctx, deployment, account);
  const requests = routeRequests(ids);
  const mix = { mix: MIX.map((r) => requests[r]) };
  const tops = {};
  for (const route of measured) tops[route] = target(`${mode}:${route}:ceiling${tag}`, mode, `${requests[route].label} (ceiling${tag})`, ceiling.base, requests[route], null, ceiling.process, false);
  if (wanted('mixed')) tops.mixed = target(`${mode}:mixed:ceiling${tag}`, mode, `mixed workload (ceiling${tag})`, ceiling.base, mix, null, ceiling.process, false);
  return { deployment, account, requests, mix, tops };
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

export async function runRoutes(ctx) {
  ctx.releases = [];
  const hello = await startHello(ctx);
  const targets = [hello];
  const pairs = [];
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
      const setup = own ? await prepareDeployment(ctx, mode, server.root, tag, { wanted, measured }) : shared;
      if (i === 0) shared = setup;
      if (own) targets.push(...Object.values(setup.tops));
      else ctx.log(`bench: ${server.root}/server has the same migrations: a second process on the same database and ceiling`);
      const { account, requests, mix, tops } = setup;
      const gatehouse = own ? setup.deployment : await startAnotherServer(setup.deployment, server.root, `${setup.deployment.name}${tag}`);
      if (!own) ctx.releases.push(onCleanup(`Gatehouse ${gatehouse.name}`, () => teardown(gatehouse)));
      // An access token of this process's own signing key (without GATEHOUSE_SECRET each process keeps its own).
      const token = own ? account.token : (await expectStatus(gatehouse.base, 'POST', '/v1/auth/login', 200, { body: { username: account.email, password: account.password } })).json.access_token;
      for (const route of measured) {
        const request = requests[route];
        const gh = target(`${mode}:${route}${tag}`, mode, `${request.label}${tag}`, gatehouse.base, request, account.key, gatehouse.server, redis);
        targets.push(gh);
        pairs.push({ mode, route, server: i, what: `${request.label}${tag}`, gatehouse: gh, ceiling: tops[route], goal: ROUTE_GOALS[mode][route] ?? ROUTE_GOALS[mode].route });
      }
      if (wanted('mixed')) {
        const ghMix = target(`${mode}:mixed${tag}`, mode, `mixed workload (70/20/10)${tag}`, gatehouse.base, mix, account.key, gatehouse.server, redis);
        targets.push(ghMix);
        pairs.push({ mode, route: 'mixed', server: i, what: `mixed: 70% reads, 20% message posts, 10% agent creates${tag}`, gatehouse: ghMix, ceiling: tops.mixed, goal: ROUTE_GOALS[mode].mixed });
      }
      for (const [id, path, credential] of [['users-me', '/v1/users/me', token], ['usage', '/v1/usage', account.key]]) {
        if (!wanted(id)) continue;
        const t = target(`${mode}:${path}${tag}`, mode, `GET ${path}${tag}`, gatehouse.base, { method: 'GET', path }, credential, gatehouse.server, redis);
        targets.push(t);
        pairs.push({ mode, route: id, server: i, what: `GET ${path} ÷ bare Fastify hello-world${tag}`, gatehouse: t, ceiling: hello, goal: ROUTE_GOALS[mode].hello });
      }
    }
  }

  const results = await interleavedRounds(targets, { ...ctx.schedule, connections: ctx.connections, redisProbe: ctx.redisProbe, log: ctx.log });
  const goals = [];
  const rows = pairs.map((p) => {
    const [g, c] = [results[p.gatehouse.id], results[p.ceiling.id]];
    const r = ratio(g, c);
    const v = verdict(r, p.goal);
    goals.push({ what: `${MODE_NAMES[p.mode]} ${p.what}${p.ceiling === hello ? '' : ' ÷ its ceiling'}`, measured: pct(r.value), goal: `≥ ${pct(p.goal)}`, rounds: `${pct(r.min)}–${pct(r.max)}`, verdict: v });
    const cpu = (rs) => (rs.every((x) => typeof x.cpuUs === 'number') ? stats(rs, 'cpuUs').median.toFixed(0) : 'n/a');
    return [MODE_NAMES[p.mode], p.what, int(stats(g, 'rps').median), int(stats(c, 'rps').median), pct(r.value), `${pct(r.min)}–${pct(r.max)}`, `≥ ${pct(p.goal)}: ${v.text}`,
      `${ms(stats(g, 'p99').median)} / ${ms(stats(c, 'p99').median)}`, `${cpu(g)} / ${cpu(c)}`];
  });
  return {
    sections: [{
      title: `Routes against their ceiling (bare Fastify, the same SQL): ${ctx.connections} connections, API key (users/me: access token)`,
      text: markdown(['mode', 'route', 'Gatehouse req/s', 'ceiling req/s', 'ratio', 'per-round', 'goal', 'p99 ms (G / c)', 'server CPU µs/req (G / c)'], rows),
    }, ...sideBySide(ctx, pairs, results)],
    goals,
    json: { targets: targets.map(({ process: _p, headers: _h, ...t }) => t), results },
    release: async () => {
      for (const release of ctx.releases) await release();
    },
  };
}
