#!/usr/bin/env node
// Apps acting for people (issue 34): one embedded Gatehouse process, one person (enterprise, limits
// no run reaches) who allowed an OAuth app twice, once for the REST API and once for the MCP
// endpoint. In the same interleaved rounds:
//   rest  GET /v1/agents?limit=20 with the app's token for the REST API (20 agents, ≈5.4 kB)
//   mcp   the same page through MCP: POST /v1/mcp tools/call list_agents {limit: 20}, with the app's MCP token
//   token POST /oauth/token, grant_type=refresh_token: each of --chains grants refreshes in turn
//         (refresh tokens rotate, so every request carries the token the previous one returned)
//   session-refresh  POST /v1/auth/refresh the same way with --chains logins: the reference
// Every answer is checked. Reports req/s, p50, p99 and server CPU per request (median over the
// rounds), and mcp ÷ rest. See README.md.
//   npm run oauth -w bench -- [--duration 10] [--rounds 3] [--warmup 3] [--connections 50] [--chains 20] [--json FILE]
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { cleanupAll } from './lib/cleanup.js';
import { LIMITS } from './lib/gatehouse-account.js';
import { gatehouseCli, newDeployment, startGatehouse, teardown } from './lib/gatehouse.js';
import { call, expectStatus } from './lib/http.js';
import { interleavedRounds, load } from './lib/load.js';
import { cpuTimeUs, stopAll } from './lib/processes.js';
import { int, markdown, median, ms, ratio, stats, times } from './lib/report.js';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    chains: { type: 'string', default: '20' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log('Usage: npm run oauth -w bench [-- --duration S --rounds N --warmup S --connections N --chains N --json FILE]');
  process.exit(0);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHAINS = Number(opts.chains);
const REDIRECT = 'http://127.0.0.1:9/callback';
const log = (line) => console.error(line);
const suffix = () => Math.random().toString(36).slice(2, 10);

async function account(base, prefix) {
  const s = suffix();
  const email = `${prefix}-${s}@example.com`;
  const password = `bench passphrase ${s} not on any list`;
  const id = (await expectStatus(base, 'POST', '/v1/auth/register', 201, { body: { email, password, name: 'Bench' } })).json.id;
  const token = (await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: email, password } })).json.access_token;
  return { id, email, password, token };
}

/** A browser: a cookie jar and manual redirects. */
function browser() {
  const jar = new Map();
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return response;
  };
}

const base64url = (buffer) => Buffer.from(buffer).toString('base64url');

/** Code + PKCE through the consent step, as the person: the token response. */
async function authorize(base, clientId, person, scope, resource) {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const url = new URL(`${base}/oauth/authorize`);
  url.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope, state: 'bench', code_challenge: challenge, code_challenge_method: 'S256', ...(resource ? { resource } : {}) }).toString();
  const go = browser();
  const interaction = new URL((await go(url)).headers.get('location'), base);
  const decided = await go(`${interaction}/decision`, { method: 'POST', headers: { authorization: `Bearer ${person.token}`, 'content-type': 'application/json' }, body: '{"decision":"allow"}' });
  if (decided.status !== 200) throw new Error(`setup: consent answered ${decided.status}: ${await decided.text()}`);
  // The answer names PUBLIC_URL (http://localhost:<port>); the bench talks to 127.0.0.1.
  const resume = new URL((await decided.json()).redirect_to);
  const landed = new URL((await go(`${base}${resume.pathname}${resume.search}`)).headers.get('location'));
  const code = landed.searchParams.get('code');
  if (!code) throw new Error(`setup: no code: ${landed}`);
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId, ...(resource ? { resource } : {}) }),
  });
  const tokens = await response.json();
  if (!tokens.access_token) throw new Error(`setup: token endpoint: ${JSON.stringify(tokens)}`);
  return tokens;
}

async function seed(deployment) {
  const { base } = deployment;
  const admin = await account(base, 'oauth-admin');
  await gatehouseCli(deployment, ['users', 'grant-admin', admin.email]);
  const adminToken = (await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: admin.email, password: admin.password } })).json.access_token;
  const person = await account(base, 'oauth-person');
  for (let tries = 0; ; tries++) { // the running server sees the role when its account cache does
    const res = await call(base, 'PATCH', `/v1/admin/users/${person.id}`, { token: adminToken, body: { tier: 'enterprise', limits: { per_minute: LIMITS.perMinute, per_day: LIMITS.perDay } } });
    if (res.status === 200) break;
    if (tries > 40) throw new Error(`setup: raising the person's limits answered ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(500);
  }
  for (let i = 0; i < 20; i++) await expectStatus(base, 'POST', '/v1/agents', 201, { token: person.token, body: { name: `Agent ${i}`, model: 'gpt-4o', description: 'A bench agent with a description of ordinary length.' } });
  const app = (await expectStatus(base, 'POST', '/v1/oauth-apps', 201, { token: person.token, body: { name: 'Bench App', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read'] } })).json;
  const rest = await authorize(base, app.id, person, 'agents:read');
  const { issuer } = (await expectStatus(base, 'GET', '/.well-known/oauth-authorization-server', 200)).json;
  const mcp = await authorize(base, app.id, person, 'agents:read', `${issuer}/v1/mcp`);
  const chains = [];
  for (let i = 0; i < CHAINS; i++) chains.push((await authorize(base, app.id, person, 'agents:read')).refresh_token);
  const sessions = [];
  for (let i = 0; i < CHAINS; i++) sessions.push((await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: person.email, password: person.password } })).json.refresh_token);
  return { clientId: app.id, rest: rest.access_token, mcp: mcp.access_token, chains, sessions };
}

/**
 * A refresh endpoint under load: CHAINS refresh tokens at once, each chain sequential (every
 * request carries the token the previous one returned: rotation).
 */
function refreshChains(deployment, { id, label, chains, send }) {
  const { server } = deployment;
  return {
    id, mode: `${CHAINS} chains`, label,
    async measure(seconds) {
      const cpuBefore = cpuTimeUs(server.pid);
      const latencies = [];
      const until = performance.now() + seconds * 1000;
      await Promise.all(chains.map(async (_, i) => {
        while (performance.now() < until) {
          const started = performance.now();
          chains[i] = await send(chains[i]);
          latencies.push(performance.now() - started);
        }
      }));
      const cpuAfter = cpuTimeUs(server.pid);
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
      return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), max: latencies.at(-1), requests: latencies.length, seconds, cpuUs: (cpuAfter - cpuBefore) / latencies.length };
    },
  };
}

async function refreshed(response, what) {
  const body = await response.json();
  if (response.status !== 200 || !body.access_token || !body.refresh_token) throw new Error(`FAILED: ${what} answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body.refresh_token;
}

function targets(deployment, seeded) {
  const { base, server } = deployment;
  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: { limit: 20 } } });
  return [
    {
      id: 'rest', mode: 'max', label: 'GET /v1/agents?limit=20 (app token for the REST API)', url: `${base}/v1/agents?limit=20`, process: server,
      headers: { authorization: `Bearer ${seeded.rest}` }, verifyBody: (body) => body.includes('"Agent 19"'),
    },
    {
      id: 'mcp', mode: 'max', label: 'POST /v1/mcp tools/call list_agents (app token for MCP)', url: `${base}/v1/mcp`, method: 'POST', process: server, body: mcpBody,
      headers: { authorization: `Bearer ${seeded.mcp}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      verifyBody: (body) => body.includes('structuredContent') && body.includes('Agent 19') && !body.includes('"isError":true'),
    },
    refreshChains(deployment, {
      id: 'token', label: 'POST /oauth/token (an app\'s refresh_token grant, rotating)', chains: seeded.chains,
      send: async (token) => refreshed(await fetch(`${base}/oauth/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&client_id=${seeded.clientId}&refresh_token=${token}`,
      }), 'the token endpoint'),
    }),
    refreshChains(deployment, {
      id: 'session-refresh', label: 'POST /v1/auth/refresh (a login\'s refresh token, rotating: the reference)', chains: seeded.sessions,
      send: async (token) => refreshed(await fetch(`${base}/v1/auth/refresh`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: token }),
      }), 'POST /v1/auth/refresh'),
    }),
  ];
}

const deployment = newDeployment('embedded', ROOT, 'oauth-bench');
const cleanup = async () => {
  await teardown(deployment);
  await stopAll();
  await cleanupAll();
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

let exitCode = 0;
try {
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');
  const header = `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; embedded (SQLite, memory limiter), one server process`;
  log(`oauth: ${header}; load average ${loadBefore}`);
  await startGatehouse(deployment);
  const seeded = await seed(deployment);
  log(`oauth: seeded a person (enterprise) with 20 agents, an app, its REST and MCP tokens and ${CHAINS} refresh chains`);
  const list = targets(deployment, seeded);
  const schedule = { connections: Number(opts.connections), log };
  for (const t of list) await load(t, Number(opts.warmup), schedule);
  const results = await interleavedRounds(list, { ...schedule, rounds: Number(opts.rounds), duration: Number(opts.duration), warmup: 0 });
  const rows = list.map((t) => {
    const rs = results[t.id];
    return [t.label, t.mode === 'max' ? `${opts.connections} conn.` : t.mode, int(stats(rs, 'rps').median), ms(median(rs.map((r) => r.p50))), ms(stats(rs, 'p99').median), median(rs.map((r) => r.cpuUs)).toFixed(0), int(rs.reduce((s, r) => s + r.requests, 0))];
  });
  const cpu = ratio(results.mcp, results.rest, 'cpuUs');
  const rps = ratio(results.mcp, results.rest);
  const refreshCpu = ratio(results.token, results['session-refresh'], 'cpuUs');
  console.log(`\n${header}\nload average before ${loadBefore}, after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${opts.rounds} interleaved rounds × ${opts.duration} s per load after ${opts.warmup} s of warm-up each; every answer checked\n`);
  console.log(markdown(['target', 'load', 'req/s (median)', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'answers'], rows, 2));
  console.log(`\n- server CPU per request, MCP tool call ÷ the same REST route: ${times(cpu.value)} (per round ${times(cpu.min)}–${times(cpu.max)})`);
  console.log(`- throughput, MCP ÷ REST: ${times(rps.value)} (per round ${times(rps.min)}–${times(rps.max)})`);
  console.log(`- server CPU per request, the token endpoint's refresh ÷ a login's refresh: ${times(refreshCpu.value)} (per round ${times(refreshCpu.min)}–${times(refreshCpu.max)})`);
  if (opts.json) await writeFile(opts.json, JSON.stringify({ header, options: opts, results }, null, 2));
} catch (error) {
  log(`\noauth: ${error.stack ?? error.message}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
