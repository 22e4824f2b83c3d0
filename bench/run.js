#!/usr/bin/env node
// Gatehouse's benchmark (issue 7): its ceiling (bare Fastify), its routes embedded and on
// PostgreSQL + Redis, the peer (Better Auth), logins, and cost growth, in one table of ratios.
// Every server is its own child process; autocannon runs here, on loopback only. See README.md.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { betterAuthVersions } from './lib/better-auth.js';
import { cleanupAll } from './lib/cleanup.js';
import { describePinning, planPinning } from './lib/cpu-pinning.js';
import { runGrowth } from './lib/parts/growth.js';
import { runLogin } from './lib/parts/login.js';
import { ROUTE_IDS, runRoutes } from './lib/parts/routes.js';
import { FLOOR_TARGETS, GATEHOUSE_TARGETS, MODE_NAMES, PEER_TARGETS, runThroughput } from './lib/parts/throughput.js';
import { ISSUE_GOALS } from './lib/goals.js';
import { stopAll } from './lib/processes.js';
import { summarizeProfile } from './lib/profile.js';
import { goalLines, goalTable } from './lib/report.js';
import { connectRedisProbe, serverRequire, serviceVersions } from './lib/services.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARTS = { throughput: runThroughput, routes: runRoutes, login: runLogin, growth: runGrowth };
const ALL_TARGETS = [...Object.keys(FLOOR_TARGETS), ...Object.keys(GATEHOUSE_TARGETS), ...Object.keys(PEER_TARGETS)];

const HELP = `Usage: npm run bench [-- options]

  --parts LIST        ${Object.keys(PARTS).join(',')} (default all)
                        throughput: bare Fastify, Gatehouse's routes, Better Auth, same rounds
                        routes:     every platform route and a mixed workload vs bare Fastify doing the same SQL,
                                    in its own process (the ceiling) and inside Gatehouse's (the in-process
                                    reference); the access line's cost; a write's round trips and fixed-rate p99
                        login:      POST /v1/auth/login vs raw argon2; GET p99 during logins
                        growth:     GET /v1/agents among 1,000 vs 1,000,000 agents
  --rounds N          measured rounds per target (default 5; throughput: per sitting, default 3),
                      interleaved across targets
  --processes N       throughput part: sittings, each with every server started afresh, their
                      rounds pooled (default 3; one process can be slower than the next for life;
                      --profile measures one)
  --duration S        seconds per round (default 5)
  --warmup S          seconds of warm-up per target before the rounds (default 3)
  --connections N     concurrent connections of the throughput loads (default 100)
  --modes LIST        embedded,redis (default both)
  --targets LIST      ${ALL_TARGETS.join(',')} (default all)
  --routes LIST       routes part: ${ROUTE_IDS.join(',')} (default all)
  --login-connections N   logins in flight for login throughput and the storm (default 4)
  --storm-rate N      fixed rate of the GETs measured alone and during logins (default 500 req/s)
  --storm-connections N   connections for those GETs (default 50: enough to hold the rate when answers slow down)
  --growth-agents N   agents in the large database (default 1000000)
  --growth-accounts N accounts in the large database (default 100000)
  --growth-modes LIST modes of the growth part (default: --modes)
  --write-rate N      routes part, PG + Redis: the fixed rate of the writes whose p99 is compared
                      with the ceiling's (default 500 req/s; 0: not measured)
  --profile           run the throughput and routes parts' Gatehouse servers under node --cpu-prof and
                      summarise the profiles (numbers measured this way are slowed by the profiler)
  --pin               throughput part: the load generator on CPU 0, every server under test on
                      the other CPUs (taskset; needs 2 or more CPUs)
  --json FILE         also write the raw rounds and the summaries as JSON
  --timeout S         give up (and clean up) after this many seconds (default 3600)
  --server-root DIR   measure the server in DIR/server instead of this checkout's (e.g. an
                      extracted commit); its node_modules must resolve
  --compare DIR       throughput and routes parts: also measure the server in DIR/server, side by
                      side in the same rounds (rows tagged [basename of DIR]): a change against its
                      base (routes: a second process on the same database, against the same ceiling;
                      with other migrations, a database and a ceiling of its own, set up alike)`;

const { values: opts } = parseArgs({
  options: {
    parts: { type: 'string', default: Object.keys(PARTS).join(',') },
    rounds: { type: 'string' },
    processes: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
    modes: { type: 'string', default: 'embedded,redis' },
    targets: { type: 'string', default: ALL_TARGETS.join(',') },
    routes: { type: 'string', default: ROUTE_IDS.join(',') },
    'login-connections': { type: 'string', default: '4' },
    'storm-rate': { type: 'string', default: '500' },
    'storm-connections': { type: 'string', default: '50' },
    'growth-agents': { type: 'string', default: '1000000' },
    'growth-accounts': { type: 'string', default: '100000' },
    'growth-modes': { type: 'string' },
    'write-rate': { type: 'string', default: '500' },
    profile: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    json: { type: 'string' },
    timeout: { type: 'string', default: '3600' },
    'server-root': { type: 'string' },
    compare: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const list = (value) => value.split(',').filter(Boolean);
const parts = list(opts.parts);
const modes = list(opts.modes);
const growthModes = list(opts['growth-modes'] ?? opts.modes);
const targetIds = list(opts.targets);
for (const id of list(opts.routes)) if (!ROUTE_IDS.includes(id)) throw new Error(`unknown route ${id} (one of ${ROUTE_IDS.join(', ')})`);
for (const p of parts) if (!PARTS[p]) throw new Error(`unknown part ${p}`);
for (const m of [...modes, ...growthModes]) if (!MODE_NAMES[m]) throw new Error(`unknown mode ${m}`);
for (const t of targetIds) if (!ALL_TARGETS.includes(t)) throw new Error(`unknown target ${t}`);
const growthAgents = Number(opts['growth-agents']);
const growthAccounts = Number(opts['growth-accounts']);
if (!(growthAgents > 1_000 && growthAccounts > 100 && growthAgents >= growthAccounts)) throw new Error('--growth-agents must exceed 1,000 and --growth-accounts 100, with at least one agent per account');

const pinning = planPinning(opts.pin);
// A CPU profile covers one server process: profiling measures one sitting.
const processes = opts.profile ? 1 : Number(opts.processes);
if (!(Number.isInteger(processes) && processes >= 1)) throw new Error('--processes must be a whole number, at least 1');
if (opts.rounds !== undefined && !(Number(opts.rounds) >= 1)) throw new Error('--rounds must be at least 1');
const SERVER_ROOT = opts['server-root'] ? resolve(opts['server-root']) : ROOT;
const COMPARE_ROOT = opts.compare ? resolve(opts.compare) : null;
const usesRedis = (parts.some((p) => p !== 'growth') && modes.includes('redis')) || (parts.includes('growth') && growthModes.includes('redis'));
const log = (line) => console.error(line);
let redisProbe = null;

// Never outlive the bound, and never leave a server, a database or a temp dir behind.
const cleanup = async () => {
  redisProbe?.close();
  await stopAll(); // every server and command first, so nothing writes to what is removed next
  await cleanupAll();
};
const watchdog = setTimeout(() => {
  log(`bench: gave up after --timeout ${opts.timeout} s`);
  void cleanup().finally(() => process.exit(1));
}, Number(opts.timeout) * 1000);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

/** Which server was measured: its directory, and its commit when it is a git checkout. */
function describeServer(root) {
  const git = (...args) => execFileSync('git', ['-C', join(root, 'server'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const changed = git('status', '--porcelain', '--', '.').split('\n').filter(Boolean).length;
    return `${join(root, 'server')} at ${commit}${changed ? ` + ${changed} uncommitted changes` : ''}`;
  } catch {
    return `${join(root, 'server')} (not a git checkout)`;
  }
}

async function machine() {
  const require = createRequire(import.meta.url);
  const ba = betterAuthVersions();
  return {
    cpus: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    fastify: serverRequire(SERVER_ROOT)('fastify/package.json').version,
    argon2: serverRequire(SERVER_ROOT)('@node-rs/argon2/package.json').version,
    betterAuth: `${ba.betterAuth} (api-key plugin ${ba.apiKeyPlugin})`,
    server: describeServer(SERVER_ROOT) + (COMPARE_ROOT ? `; compared with ${describeServer(COMPARE_ROOT)}` : ''),
    autocannon: require('autocannon/package.json').version,
    ...(usesRedis ? await serviceVersions(SERVER_ROOT) : {}),
    pinning: describePinning(pinning),
    loadBefore: loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}

const describe = (info) => `${info.cpus} CPUs (${info.cpu}), Node ${info.node}, fastify ${info.fastify}, @node-rs/argon2 ${info.argon2}, ` +
  `better-auth ${info.betterAuth}, autocannon ${info.autocannon}${info.postgresql ? `, PostgreSQL ${info.postgresql}, Redis ${info.redis}` : ''}`;

async function main() {
  const info = await machine();
  const schedule = { rounds: Number(opts.rounds ?? 5), duration: Number(opts.duration), warmup: Number(opts.warmup) };
  const throughputSchedule = { ...schedule, rounds: Number(opts.rounds ?? (processes > 1 ? 3 : 5)) };
  log(`bench: ${describe(info)}; load average ${info.loadBefore}`);
  log(`bench: server ${info.server}`);
  log(`bench: parts ${parts.join(', ')}; ${schedule.warmup} s warm-up, ${schedule.rounds} rounds × ${schedule.duration} s per target, interleaved; ` +
    `throughput: ${processes} sitting(s) of ${throughputSchedule.rounds} rounds, ${info.pinning}`);
  if (usesRedis) redisProbe = await connectRedisProbe(SERVER_ROOT);
  const ctx = {
    repoRoot: ROOT, log, schedule, modes, growthModes, targetIds, redisProbe, pinning, processes,
    routeIds: new Set(list(opts.routes)),
    connections: Number(opts.connections),
    loginConnections: Number(opts['login-connections']),
    stormRate: Number(opts['storm-rate']),
    stormConnections: Number(opts['storm-connections']),
    writeRate: Number(opts['write-rate']),
    growthAgents, growthAccounts,
    servers: [{ root: SERVER_ROOT, tag: '' }, ...(COMPARE_ROOT ? [{ root: COMPARE_ROOT, tag: ` [${basename(COMPARE_ROOT)}]` }] : [])],
    profileRoot: opts.profile ? join(ROOT, 'bench', 'profiles', new Date().toISOString().replace(/[:.]/g, '-')) : null,
    served: new Map(),
  };
  if (ctx.profileRoot) await mkdir(ctx.profileRoot, { recursive: true });

  const outcomes = {};
  for (const part of parts) {
    const started = Date.now();
    log(`bench: == ${part} ==`);
    // Each part gets its own copy of the context, since parts keep their own resources on it.
    const outcome = await PARTS[part](part === 'throughput' ? { ...ctx, schedule: throughputSchedule } : part === 'routes' ? ctx : { ...ctx, servers: ctx.servers.slice(0, 1) });
    await outcome.release(); // free the machine (servers, databases) before the next part
    outcome.seconds = (Date.now() - started) / 1000;
    outcomes[part] = outcome;
  }
  info.loadAfter = loadavg().map((l) => l.toFixed(2)).join(' ');

  console.log(`\n${describe(info)}`);
  console.log(`server: ${info.server}`);
  console.log(`${schedule.warmup} s warm-up, ${schedule.rounds} interleaved rounds × ${schedule.duration} s per target ` +
    `(throughput: ${processes} sitting(s) of fresh servers × ${throughputSchedule.rounds} rounds, pooled; ${info.pinning}); load average before ${info.loadBefore}, after ${info.loadAfter}`);
  console.log('Spread = (max − min) / median over the rounds: how much the machine moved under the run.');
  for (const [part, outcome] of Object.entries(outcomes)) {
    for (const section of outcome.sections) console.log(`\n## ${section.title} (${part}, ${Math.round(outcome.seconds)} s)\n\n${section.text}`);
  }
  if (outcomes.throughput) {
    console.log('\n/v1/users/me refuses API keys by design (403 session_required, checked at setup), so the API-key path is ' +
      'measured where a key is allowed: GET /v1/usage (the goal rows) and GET /v1/agents with 20 agents.');
  }
  // The issue's goals, one table; then any other part's checks (login, growth, a --compare server's).
  const measured = Object.values(outcomes).flatMap((o) => o.goals);
  const table = goalTable(ISSUE_GOALS, measured);
  console.log(`\n## Goals: ${table.met} met, ${table.missed} not met, ${table.unmeasured} not measured in this run${table.unjudged ? `, ${table.unjudged} not judged` : ''} (of ${table.total}); ` +
    `server CPU per request, medians over ${schedule.rounds} rounds\n\n${table.text}`);
  const issueIds = new Set(ISSUE_GOALS.map((g) => g.id));
  const others = goalLines(measured.filter((g) => !issueIds.has(g.id)));
  if (others.total) console.log(`\n## Other checks: ${others.met} of ${others.total} met\n${others.text}`);
  if (opts.profile) console.log('\n(measured under --cpu-prof: the profiler slows the Gatehouse servers)');
  if (opts.json) {
    const json = Object.fromEntries(Object.entries(outcomes).map(([part, o]) => [part, { seconds: o.seconds, goals: o.goals, ...o.json }]));
    await writeFile(opts.json, JSON.stringify({ info, schedule, parts: json }, null, 2));
  }
  return { ctx, outcomes };
}

/** After the servers have exited (a clean exit writes the profile): where their time went. */
async function printProfiles(ctx, outcomes) {
  const entries = [];
  if (outcomes.throughput) {
    const { window, hello, profiled } = outcomes.throughput.profile;
    entries.push({ dir: 'hello', name: 'bare Fastify', process: hello, window });
    for (const p of profiled) entries.push({ dir: p.key, name: MODE_NAMES[p.key] ?? p.key, process: p.process, window });
  }
  if (outcomes.routes) for (const e of outcomes.routes.profile.entries) entries.push({ ...e, window: outcomes.routes.profile.window });
  const present = new Set(await readdir(ctx.profileRoot));
  for (const e of entries.filter((x) => present.has(x.dir))) {
    const path = join(ctx.profileRoot, e.dir);
    const files = await Promise.all((await readdir(path)).filter((f) => f.endsWith('.cpuprofile')).map(async (f) => ({ f: join(path, f), size: (await stat(join(path, f))).size })));
    // The largest profile is the main thread's; tsx's loader thread writes a small one too.
    const main = files.sort((a, b) => b.size - a.size)[0];
    console.log(main ? `\n== CPU profile, ${e.name} ==\n${await summarizeProfile(main.f, { requests: ctx.served.get(e.process), window: e.window })}` : `\nbench: no CPU profile was written for ${e.name}`);
  }
}

let exitCode = 0;
let done = null;
try {
  done = await main();
} catch (error) {
  log(`\nbench: ${error.message}`);
  exitCode = 1;
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
if (done?.ctx.profileRoot) await printProfiles(done.ctx, done.outcomes);
process.exit(exitCode);
