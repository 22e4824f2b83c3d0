#!/usr/bin/env node
// POST /v1/auth/verify under load (issue 20): one embedded Gatehouse process, a service key of an
// admin, N accounts with an API key and an access token each. In the same interleaved rounds: a
// fixed rate (open loop) of verifies of the accounts' keys, counted and with count:false, and of
// GET /v1/users/me with their access tokens; then each at full throughput (autocannon, closed
// loop). See README.md.
//   npm run verify -w bench -- [--rate 5000] [--duration 10] [--rounds 3] [--accounts 50] [--json FILE] [--profile]
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { cleanupAll } from './lib/cleanup.js';
import { describePinning, planPinning, whilePinned } from './lib/cpu-pinning.js';
import { LIMITS } from './lib/gatehouse-account.js';
import { gatehouseCli, newDeployment, startGatehouse, teardown } from './lib/gatehouse.js';
import { call, expectStatus } from './lib/http.js';
import { interleavedRounds, load } from './lib/load.js';
import { openLoop, rawRequest } from './lib/open-loop.js';
import { freePort, startProcess, stopAll, waitUntilServing } from './lib/processes.js';
import { summarizeProfile } from './lib/profile.js';
import { goalLines, int, markdown, median, ms, pct, ratio, stats, times, verdict } from './lib/report.js';

const TARGETS = ['verify', 'me', 'verify-peek', 'hello', 'max-verify', 'max-me'];
const { values: opts } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    accounts: { type: 'string', default: '50' },
    connections: { type: 'string', default: '100' },
    targets: { type: 'string', default: TARGETS.join(',') },
    'p99-goal': { type: 'string', default: '2' },
    profile: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    json: { type: 'string' },
    'server-root': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(`Usage: npm run verify -w bench [-- options]
  --rate N         fixed rate of the open-loop loads, req/s (default 5000)
  --duration S     seconds per load and round (default 10)
  --rounds N       interleaved rounds (default 3)
  --warmup S       seconds of warm-up per load (default 3)
  --accounts N     accounts whose keys and tokens are rotated through (default 50)
  --connections N  connections of the closed-loop (max throughput) loads (default 100)
  --targets LIST   ${TARGETS.join(',')} (default all; hello: a bare Fastify
                   hello-world at the same fixed rate, the machine's floor for the tail)
  --p99-goal MS    the issue's p99 at the fixed rate (default 2)
  --profile        run the server under node --cpu-prof; summarise the measured rounds
  --pin            the load generator on CPU 0, the servers on the others (taskset)
  --json FILE      also write the rounds and the summary as JSON
  --server-root DIR  measure DIR/server (e.g. a commit extracted with git archive) instead of this checkout's`);
  process.exit(0);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_ROOT = opts['server-root'] ? resolve(opts['server-root']) : ROOT;
const RATE = Number(opts.rate);
const ACCOUNTS = Number(opts.accounts);
const P99_GOAL = Number(opts['p99-goal']);
const targetIds = opts.targets.split(',').filter(Boolean);
for (const t of targetIds) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t} (one of ${TARGETS.join(', ')})`);
const log = (line) => console.error(line);
const suffix = () => Math.random().toString(36).slice(2, 10);

/** Runs `fn(i)` for i < n, `width` at a time (argon2 runs on the server's thread pool). */
async function pool(n, width, fn) {
  const out = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

async function registerAndLogin(base, prefix) {
  const s = suffix();
  const email = `${prefix}-${s}@example.com`;
  const password = `bench passphrase ${s} not on any list`;
  const userId = (await expectStatus(base, 'POST', '/v1/auth/register', 201, { body: { email, password, name: 'Bench' } })).json.id;
  return { email, password, userId };
}
const login = async (base, a) => (await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: a.email, password: a.password } })).json.access_token;

/** The admin and its service key, then the accounts (enterprise, limits no run reaches), all checked. */
async function seed(deployment) {
  const { base } = deployment;
  const admin = await registerAndLogin(base, 'verify-admin');
  await gatehouseCli(deployment, ['users', 'grant-admin', admin.email]);
  admin.token = await login(base, admin);
  for (let tries = 0; ; tries++) { // the running server sees the role when its account cache does
    const res = await call(base, 'POST', '/v1/api-keys', { token: admin.token, body: { name: 'verify bench', scopes: ['credentials:verify'] } });
    if (res.status === 201) { admin.serviceKey = res.json.key; break; }
    if (res.status !== 403 || tries > 40) throw new Error(`setup: service key: ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(500);
  }
  const accounts = await pool(ACCOUNTS, 4, async () => {
    const a = await registerAndLogin(base, 'verify');
    a.token = await login(base, a);
    a.key = (await expectStatus(base, 'POST', '/v1/api-keys', 201, { token: a.token, body: { name: 'bench' } })).json.key;
    await expectStatus(base, 'PATCH', `/v1/admin/users/${a.userId}`, 200, { token: admin.token, body: { tier: 'enterprise', limits: { per_minute: LIMITS.perMinute, per_day: LIMITS.perDay } } });
    return a;
  });
  const service = { authorization: `Bearer ${admin.serviceKey}` };
  for (const a of accounts) {
    for (let tries = 0; ; tries++) {
      const v = (await expectStatus(base, 'POST', '/v1/auth/verify', 200, { headers: service, body: { credential: a.key, count: false } })).json;
      if (!v.valid || v.user_id !== a.userId) throw new Error(`setup: verify of ${a.email}'s key answered ${JSON.stringify(v)}`);
      if (v.ratelimit.minute.limit === LIMITS.perMinute) break;
      if (tries > 40) throw new Error(`setup: the server still reports ${JSON.stringify(v.ratelimit)} after the tier change`);
      await sleep(500);
    }
    const me = await expectStatus(base, 'GET', '/v1/users/me', 200, { token: a.token });
    if (me.json.id !== a.userId) throw new Error(`setup: /v1/users/me answered ${me.text}`);
  }
  const bogus = (await expectStatus(base, 'POST', '/v1/auth/verify', 200, { headers: service, body: { credential: 'gth_not_a_key' } })).json;
  if (bogus.valid !== false) throw new Error(`setup: a bogus key verified: ${JSON.stringify(bogus)}`);
  const refused = await call(base, 'POST', '/v1/auth/verify', { token: accounts[0].key, body: { credential: accounts[1 % ACCOUNTS].key } });
  if (refused.status !== 403) throw new Error(`setup: verify with an ordinary key answered ${refused.status}, expected 403`);
  return { admin, accounts };
}

/** A bare Fastify hello-world (bench/hello-server.js) in its own process: the machine's floor. */
async function startHello() {
  const port = await freePort();
  const hello = startProcess('bare fastify', ['bench/hello-server.js'], { PORT: String(port), HOST: '127.0.0.1' }, ROOT);
  await waitUntilServing(hello, `http://127.0.0.1:${port}/`);
  return { base: `http://127.0.0.1:${port}`, server: hello };
}

/** The loads; `fixed` ones are open loop at RATE, `max` ones autocannon at --connections. */
async function makeTargets(deployment, { admin, accounts }) {
  const { base, server } = deployment;
  const n = accounts.length;
  const verifyHeaders = { authorization: `Bearer ${admin.serviceKey}`, 'content-type': 'application/json' };
  const bodies = (extra) => accounts.map((a) => Buffer.from(JSON.stringify({ credential: a.key, ...extra })));
  const counted = bodies({});
  const peek = bodies({ count: false });
  const verified = (status, body, i) => (status !== 200 ? `${status} ${body.slice(0, 200)}` :
    body.includes('"valid":true') && body.includes(`"user_id":"${accounts[i % n].userId}"`) ? null : `not valid for its account: ${body.slice(0, 200)}`);
  const isMe = (status, body, i) => (status === 200 && body.includes(`"id":"${accounts[i % n].userId}"`) ? null : `${status} ${body.slice(0, 200)}`);
  const fixed = (id, label, requests, check, target = { base, server }) => ({
    id, mode: `${int(RATE)}/s`, label, fixed: true, server: target.server,
    async measure(seconds) {
      const m = await openLoop({ url: target.base, rate: RATE, seconds, request: (i) => requests[i % requests.length], check, process: target.server, slowMs: P99_GOAL });
      if (m.errors) throw new Error(`FAILED: ${label} at ${RATE}/s: ${m.errors} of ${m.asked} answers wrong or missing: ${m.problems.join('; ')}`);
      return m;
    },
  });
  const raw = (list, fn) => list.map((x, i) => rawRequest(base, fn(x, i)));
  let k = 0;
  let t = 0;
  const hello = targetIds.includes('hello') ? await startHello() : null;
  const all = {
    verify: fixed('verify', 'POST /v1/auth/verify (API keys, counted)', raw(counted, (body) => ({ method: 'POST', path: '/v1/auth/verify', headers: verifyHeaders, body })), verified),
    me: fixed('me', 'GET /v1/users/me (access tokens)', raw(accounts, (a) => ({ path: '/v1/users/me', headers: { authorization: `Bearer ${a.token}` } })), isMe),
    'verify-peek': fixed('verify-peek', 'POST /v1/auth/verify (API keys, count: false)', raw(peek, (body) => ({ method: 'POST', path: '/v1/auth/verify', headers: verifyHeaders, body })), verified),
    hello: hello && fixed('hello', 'bare Fastify hello-world (the floor)', [rawRequest(hello.base, { path: '/' })],
      (status, body) => (status === 200 && body === '{"hello":"world"}' ? null : `${status} ${body.slice(0, 200)}`), hello),
    'max-verify': {
      id: 'max-verify', mode: 'max', label: 'POST /v1/auth/verify (API keys, counted)', url: base, process: server,
      requests: [{ method: 'POST', path: '/v1/auth/verify', headers: verifyHeaders, setupRequest: (req) => ({ ...req, body: counted[k++ % n].toString() }) }],
      verifyBody: (body) => body.includes('"valid":true'),
    },
    'max-me': {
      id: 'max-me', mode: 'max', label: 'GET /v1/users/me (access tokens)', url: base, process: server,
      requests: [{ method: 'GET', path: '/v1/users/me', setupRequest: (req) => ({ ...req, headers: { authorization: `Bearer ${accounts[t++ % n].token}` } }) }],
      verifyBody: (body) => body.includes('"email"'),
    },
  };
  return targetIds.map((id) => all[id]);
}

function report(targets, results) {
  const rows = targets.map((t) => {
    const rs = results[t.id];
    const rps = stats(rs, 'rps');
    const p99 = stats(rs, 'p99');
    const cpu = rs.every((r) => typeof r.cpuUs === 'number') ? median(rs.map((r) => r.cpuUs)) : null;
    return {
      id: t.id, load: t.fixed ? `fixed ${int(RATE)}/s, open loop` : `max, ${opts.connections} conn.`, label: t.label,
      rps: rps.median, p50: median(rs.map((r) => r.p50)), p99: p99.median, p99min: p99.min, p99max: p99.max,
      sendP99: t.fixed ? median(rs.map((r) => r.sendP99)) : null,
      slow: t.fixed ? rs.reduce((sum, r) => sum + r.slowShare * r.requests, 0) / rs.reduce((sum, r) => sum + r.requests, 0) : null,
      max: Math.max(...rs.map((r) => r.max)), lagP99: t.fixed ? median(rs.map((r) => r.lagP99)) : null, senderCpuUs: t.fixed ? median(rs.map((r) => r.senderCpuUs)) : null, cpuUs: cpu,
      answers: rs.reduce((s, r) => s + r.requests, 0),
    };
  });
  const table = markdown(['load', 'target', 'req/s (median)', 'p50 ms', 'p99 ms (median; rounds)', `over ${P99_GOAL} ms`, 'max ms', 'p99 from send ms', 'sender: lag p99 ms, CPU µs/req', 'server CPU µs/req', 'answers checked, errors'],
    rows.map((r) => [r.load, r.label, int(r.rps), ms(r.p50), `${ms(r.p99)} (${ms(r.p99min)}–${ms(r.p99max)})`, r.slow === null ? '—' : `${(r.slow * 100).toFixed(2)}%`, ms(r.max), r.sendP99 === null ? '—' : ms(r.sendP99),
      r.lagP99 === null ? '—' : `${ms(r.lagP99)}, ${r.senderCpuUs.toFixed(0)}`, r.cpuUs === null ? 'n/a' : r.cpuUs.toFixed(0), `${int(r.answers)}, 0`]), 2);
  const has = (id) => results[id] !== undefined;
  const ratios = [];
  if (has('max-verify') && has('max-me')) {
    const r = ratio(results['max-verify'], results['max-me']);
    ratios.push(`max throughput, verify ÷ users/me: ${pct(r.value)} (per round ${pct(r.min)}–${pct(r.max)})`);
    const c = ratio(results['max-verify'], results['max-me'], 'cpuUs');
    ratios.push(`server CPU per request (max loads), verify ÷ users/me: ${times(c.value)} (per round ${times(c.min)}–${times(c.max)})`);
  }
  if (has('verify') && has('me')) {
    const r = ratio(results.verify, results.me, 'p99');
    ratios.push(`p99 at ${int(RATE)}/s, verify ÷ users/me: ${times(r.value)} (per round ${times(r.min)}–${times(r.max)})`);
  }
  if (has('verify') && has('hello')) {
    const r = ratio(results.verify, results.hello, 'p99');
    ratios.push(`p99 at ${int(RATE)}/s, verify ÷ bare Fastify hello-world: ${times(r.value)} (per round ${times(r.min)}–${times(r.max)}); the floor's p99 is the machine's`);
  }
  const goals = [];
  if (has('verify')) {
    const row = rows.find((r) => r.id === 'verify');
    const v = verdict({ value: row.p99, min: row.p99min, max: row.p99max }, P99_GOAL, 'at most');
    const rateOk = row.rps >= 0.99 * RATE;
    goals.push({
      what: `POST /v1/auth/verify at ${int(RATE)} req/s in one process, p99`, measured: `${ms(row.p99)} ms at ${int(row.rps)} req/s`,
      goal: `< ${P99_GOAL} ms at the full rate`, rounds: `${ms(row.p99min)}–${ms(row.p99max)} ms`,
      verdict: rateOk ? v : { met: false, text: 'MISSED (rate not held)' },
    });
  }
  return { rows, table, ratios, goals };
}

function describeServer() {
  const git = (...args) => execFileSync('git', ['-C', join(SERVER_ROOT, 'server'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const changed = git('status', '--porcelain', '--', '.').split('\n').filter(Boolean).length;
    return `server ${join(SERVER_ROOT, 'server')} at ${git('rev-parse', '--short', 'HEAD')}${changed ? ` + ${changed} uncommitted changes` : ''}`;
  } catch {
    return `server ${join(SERVER_ROOT, 'server')} (not a git checkout)`;
  }
}

const profileDir = opts.profile ? join(ROOT, 'bench', 'profiles', `verify-${new Date().toISOString().replace(/[:.]/g, '-')}`) : null;
const deployment = newDeployment('embedded', SERVER_ROOT, 'verify-bench');
const cleanup = async () => {
  await teardown(deployment);
  await stopAll();
  await cleanupAll();
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

const pinning = planPinning(opts.pin);
let exitCode = 0;
let window = null;
let served = 0;
try {
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');
  const header = `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${describeServer()}; embedded (SQLite, memory limiter), one server process; ${describePinning(pinning)}`;
  log(`verify: ${header}; load average ${loadBefore}`);
  if (profileDir) await mkdir(profileDir, { recursive: true });
  await startGatehouse(deployment, { profileDir });
  const started = Date.now();
  const seeded = await seed(deployment);
  log(`verify: seeded an admin with a service key and ${ACCOUNTS} accounts (enterprise, API key, access token) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const targets = await makeTargets(deployment, seeded);
  const schedule = { connections: Number(opts.connections), log };
  const pids = [deployment.server.pid, ...targets.filter((t) => t.server).map((t) => t.server.pid)];
  const results = await whilePinned(pinning, pids, async () => {
    for (const t of targets) await load(t, Number(opts.warmup), schedule); // warm-up, not measured
    const from = Number(process.hrtime.bigint() / 1000n);
    const rounds = await interleavedRounds(targets, { ...schedule, rounds: Number(opts.rounds), duration: Number(opts.duration), warmup: 0 });
    window = [from, Number(process.hrtime.bigint() / 1000n)];
    return rounds;
  });
  served = targets.filter((t) => (t.server ?? t.process) === deployment.server).flatMap((t) => results[t.id]).reduce((s, r) => s + r.requests, 0);
  const out = report(targets, results);
  const goals = goalLines(out.goals);
  console.log(`\n${header}\nload average before ${loadBefore}, after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${opts.rounds} interleaved rounds × ${opts.duration} s per load after ${opts.warmup} s of warm-up each; ${ACCOUNTS} accounts rotated through (their API keys for verify, access tokens for users/me)`);
  console.log(`fixed rate: open loop over keep-alive connections (raw sockets, prebuilt requests), ${int(RATE)} req/s sent in bursts each millisecond; latency from each request's scheduled send time ` +
    '(no coordinated omission); "from send": from when it actually went out; "sender": how late the generator itself sent (p99) and the CPU it used. max: autocannon, closed loop. Every answer checked (fixed rate: verify valid:true with the account\'s user_id, users/me the account\'s id; max: verify valid:true).');
  console.log(`\n${out.table}\n\n${out.ratios.map((r) => `- ${r}`).join('\n')}\n\nGoal: ${goals.met} of ${goals.total} met\n${goals.text}`);
  if (opts.profile) console.log('\n(measured under --cpu-prof: the profiler slows the server)');
  if (opts.json) await writeFile(opts.json, JSON.stringify({ header, options: opts, results, rows: out.rows, ratios: out.ratios, goals: out.goals }, null, 2));
} catch (error) {
  log(`\nverify: ${error.message}`);
  exitCode = 1;
} finally {
  await cleanup();
}
if (profileDir && window) {
  const files = await Promise.all((await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile')).map(async (f) => ({ f: join(profileDir, f), size: (await stat(join(profileDir, f))).size })));
  const main = files.sort((a, b) => b.size - a.size)[0]; // the main thread's; tsx's loader thread writes a small one
  console.log(main ? `\n== CPU profile of the server, measured rounds ==\n${await summarizeProfile(main.f, { requests: served, window, top: 40 })}` : '\nverify: no CPU profile was written');
}
process.exit(exitCode);
