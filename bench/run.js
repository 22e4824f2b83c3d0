#!/usr/bin/env node
// Gatehouse throughput against a bare Fastify hello-world, embedded and on PostgreSQL + Redis.
// Every server is its own child process; autocannon runs here, on loopback only. See README.md.
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connectRedisProbe, newDeployment, prepareAccount, serverRequire, serviceVersions, startGatehouse, teardown } from './lib/gatehouse.js';
import { summarizeProfile } from './lib/profile.js';
import { cpuTimeUs, freePort, startProcess, stopProcess, waitUntilServing } from './lib/processes.js';
import { goalSummary, markdownTable, summarize } from './lib/report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = {
  healthz: { label: 'GET /healthz (no auth)', path: '/healthz', credential: null },
  'me-token': { label: 'GET /v1/users/me, access token', path: '/v1/users/me', credential: 'token', authenticated: true },
  'usage-token': { label: 'GET /v1/usage, access token', path: '/v1/usage', credential: 'token', authenticated: true },
  'usage-key': { label: 'GET /v1/usage, API key', path: '/v1/usage', credential: 'key', authenticated: true },
};
/** The issue's goals: authenticated routes reach this share of bare Fastify's throughput. */
const GOALS = { embedded: 0.7, redis: 0.5 };
const MODE_NAMES = { embedded: 'embedded', redis: 'PG + Redis' };

const HELP = `Usage: npm run bench [-- options]

  --rounds N        measured rounds per target (default 5), interleaved across targets
  --duration S      seconds per round (default 5)
  --warmup S        seconds of warm-up per target before the rounds (default 3)
  --connections N   concurrent connections (default 100)
  --modes LIST      embedded,redis (default both)
  --targets LIST    ${Object.keys(TARGETS).join(',')} (default all)
  --profile         run the Gatehouse servers under node --cpu-prof and summarise the profiles
                    (numbers measured this way are slowed by the profiler)
  --json FILE       also write the raw rounds and the summary as JSON
  --timeout S       give up (and clean up) after this many seconds (default 900)
  --server-root DIR measure the server in DIR/server instead of this checkout's (e.g. an
                    extracted commit); its node_modules must resolve
  --compare DIR     also measure the server in DIR/server, side by side in the same rounds
                    (rows tagged [basename of DIR]): a change against its base, same noise`;

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
    modes: { type: 'string', default: 'embedded,redis' },
    targets: { type: 'string', default: Object.keys(TARGETS).join(',') },
    profile: { type: 'boolean', default: false },
    json: { type: 'string' },
    timeout: { type: 'string', default: '900' },
    'server-root': { type: 'string' },
    compare: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const rounds = Number(opts.rounds);
const duration = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const modes = opts.modes.split(',').filter(Boolean);
const targetIds = opts.targets.split(',').filter(Boolean);
for (const m of modes) if (!GOALS[m]) throw new Error(`unknown mode ${m}`);
for (const t of targetIds) if (!TARGETS[t]) throw new Error(`unknown target ${t}`);

const SERVER_ROOT = opts['server-root'] ? resolve(opts['server-root']) : ROOT;
const COMPARE_ROOT = opts.compare ? resolve(opts.compare) : null;
const log = (line) => console.error(line);
let hello = null;
const deployments = [];
let cleaning = null;
let redisProbe = null;

function cleanup() {
  cleaning ??= (async () => {
    redisProbe?.close();
    if (hello) await stopProcess(hello);
    for (const d of deployments) {
      const problems = await teardown(d, d.root);
      for (const p of problems) log(`bench: cleanup of ${d.mode} left something behind: ${p}`);
    }
  })();
  return cleaning;
}
// Never outlive the bound, and never leave a server or a database behind.
const watchdog = setTimeout(() => {
  log(`bench: gave up after --timeout ${opts.timeout} s`);
  void cleanup().finally(() => process.exit(1));
}, Number(opts.timeout) * 1000);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

/** Requests each server process answered under load, to express profiles per request. */
const served = new Map();

/**
 * One load of `seconds` on one target. Besides throughput and latency it measures the CPU the
 * server process (and Redis, in that mode) spent per request: on a shared machine throughput
 * moves with everyone else's work, CPU per request much less.
 */
async function load(target, seconds) {
  const cpuBefore = cpuTimeUs(target.process.pid);
  const redisBefore = target.redis ? await redisProbe.cpuTimeUs() : null;
  const result = await autocannon({ url: target.url, connections, duration: seconds, headers: target.headers, pipelining: 1 });
  const cpuAfter = cpuTimeUs(target.process.pid);
  const redisAfter = target.redis ? await redisProbe.cpuTimeUs() : null;
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(`FAILED: ${target.mode} ${target.label}: ${result.non2xx} non-2xx answers ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  served.set(target.process, (served.get(target.process) ?? 0) + result.requests.total);
  if (target.process.child.exitCode !== null) throw new Error(`FAILED: ${target.process.name} exited:\n${target.process.output()}`);
  const perRequest = (before, after) => (before === null || after === null ? null : (after - before) / result.requests.total);
  return {
    rps: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99, requests: result['2xx'], seconds: result.duration,
    bytesPerResponse: result.throughput.total / result.requests.total,
    cpuUs: perRequest(cpuBefore, cpuAfter), redisCpuUs: target.redis ? perRequest(redisBefore, redisAfter) : null,
  };
}

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
  return {
    cpus: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    fastify: serverRequire(SERVER_ROOT)('fastify/package.json').version,
    server: describeServer(SERVER_ROOT) + (COMPARE_ROOT ? `; compared with ${describeServer(COMPARE_ROOT)}` : ''),
    autocannon: require('autocannon/package.json').version,
    ...(modes.includes('redis') ? await serviceVersions(SERVER_ROOT) : {}),
    loadBefore: loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}

async function main() {
  const info = await machine();
  log(`bench: ${info.cpus} CPUs (${info.cpu}), Node ${info.node}, fastify ${info.fastify}, autocannon ${info.autocannon}` +
    `${info.postgresql ? `, PostgreSQL ${info.postgresql}, Redis ${info.redis}` : ''}; load average ${info.loadBefore}`);
  log(`bench: server ${info.server}`);
  log(`bench: ${connections} connections, ${warmup} s warm-up, ${rounds} rounds × ${duration} s per target, interleaved`);
  const profileRoot = opts.profile ? join(ROOT, 'bench', 'profiles', new Date().toISOString().replace(/[:.]/g, '-')) : null;

  const port = await freePort();
  let helloArgs = ['bench/hello-server.js'];
  if (profileRoot) {
    await mkdir(join(profileRoot, 'hello'), { recursive: true });
    helloArgs = ['--cpu-prof', `--cpu-prof-dir=${join(profileRoot, 'hello')}`, ...helloArgs];
  }
  hello = startProcess('bare fastify', helloArgs, { PORT: String(port), HOST: '127.0.0.1' }, ROOT);
  await waitUntilServing(hello, `http://127.0.0.1:${port}/`);
  const targets = [{ id: 'hello', mode: '—', label: 'bare Fastify hello-world', url: `http://127.0.0.1:${port}/`, headers: {}, process: hello }];

  if (modes.includes('redis')) redisProbe = await connectRedisProbe(SERVER_ROOT);
  // With --compare, every mode runs twice, side by side: this server and the other one.
  const servers = [{ root: SERVER_ROOT, tag: '' }, ...(COMPARE_ROOT ? [{ root: COMPARE_ROOT, tag: ` [${basename(COMPARE_ROOT)}]` }] : [])];
  for (const { root, tag } of servers) {
    for (const mode of modes) {
      const name = `${MODE_NAMES[mode]}${tag}`;
      const profileDir = profileRoot ? join(profileRoot, `${mode}${tag ? `-${basename(root)}` : ''}`) : undefined;
      if (profileDir) await mkdir(profileDir, { recursive: true });
      const started = Date.now();
      // Pushed before setup so a failed start is still cleaned up.
      const deployment = newDeployment(mode, root);
      deployments.push(deployment);
      deployment.profileKey = profileDir ? basename(profileDir) : mode;
      await startGatehouse(deployment, { root, profileDir });
      const credentials = await prepareAccount(deployment, root);
      log(`bench: ${name} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (account ${credentials.email}, ${credentials.userId}, enterprise)`);
      for (const id of targetIds) {
        const t = TARGETS[id];
        const secret = t.credential ? credentials[t.credential] : null;
        targets.push({
          id: `${mode}${tag}:${id}`, mode: name, label: t.label, url: deployment.base + t.path,
          headers: secret ? { authorization: `Bearer ${secret}` } : {},
          goal: t.authenticated ? GOALS[mode] : undefined, process: deployment.server, redis: mode === 'redis',
        });
      }
    }
  }

  const window = [Number(process.hrtime.bigint() / 1000n)];
  for (const t of targets) {
    await load(t, warmup);
    log(`bench: warmed up ${t.mode} ${t.label}`);
  }
  const results = Object.fromEntries(targets.map((t) => [t.id, []]));
  for (let r = 0; r < rounds; r++) {
    // Rotate the order every round so no target always runs right after the same neighbour.
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const m = await load(t, duration);
      results[t.id][r] = m;
      const cpu = m.cpuUs === null ? '' : `  CPU ${m.cpuUs.toFixed(0)} µs/req${m.redisCpuUs === null ? '' : ` + Redis ${m.redisCpuUs.toFixed(0)}`}`;
      log(`bench: round ${r + 1}/${rounds} ${t.mode.padEnd(10)} ${t.label.padEnd(32)} ${Math.round(m.rps).toString().padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms${cpu}  ${Math.round(m.bytesPerResponse)} B/resp`);
      await sleep(250);
    }
  }
  window.push(Number(process.hrtime.bigint() / 1000n));
  info.loadAfter = loadavg().map((l) => l.toFixed(2)).join(' ');

  const rows = summarize(targets, results, 'hello');
  const goals = goalSummary(rows);
  console.log(`\n${info.cpus} CPUs (${info.cpu}), Node ${info.node}, fastify ${info.fastify}, autocannon ${info.autocannon}` +
    `${info.postgresql ? `, PostgreSQL ${info.postgresql}, Redis ${info.redis}` : ''}`);
  console.log(`server: ${info.server}`);
  console.log(`${connections} connections, ${warmup} s warm-up, ${rounds} interleaved rounds × ${duration} s; load average before ${info.loadBefore}, after ${info.loadAfter}\n`);
  console.log(markdownTable(rows));
  console.log(`\nGoals (authenticated routes vs bare Fastify): ${goals.total - goals.missed} of ${goals.total} met\n${goals.text}`);
  if (opts.profile) console.log('\n(measured under --cpu-prof: the profiler slows the Gatehouse servers)');
  if (opts.json) {
    const strip = rows.map(({ process: _p, headers: _h, ...r }) => r);
    await writeFile(opts.json, JSON.stringify({ info, connections, warmup, rounds, duration, results, summary: strip }, null, 2));
  }
  return { profileRoot, window, requests: { hello: served.get(hello), ...Object.fromEntries(deployments.map((d) => [d.profileKey, served.get(d.server)])) } };
}

let exitCode = 0;
let profileRoot = null;
let requests = {};
let window = null;
try {
  ({ profileRoot, requests, window } = await main());
} catch (error) {
  log(`\nbench: ${error.message}`);
  exitCode = 1;
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
if (profileRoot) {
  for (const mode of ['hello', ...(await readdir(profileRoot)).filter((d) => d !== 'hello')]) {
    const dir = join(profileRoot, mode);
    const files = await Promise.all((await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).map(async (f) => ({ f: join(dir, f), size: (await stat(join(dir, f))).size })));
    // The largest profile is the main thread's; tsx's loader thread writes a small one too.
    const main = files.sort((a, b) => b.size - a.size)[0];
    const name = mode === 'hello' ? 'bare Fastify' : (MODE_NAMES[mode] ?? mode);
    console.log(main ? `\n== CPU profile, ${name} ==\n${await summarizeProfile(main.f, { requests: requests[mode], window })}` : `\nbench: no CPU profile was written for ${name}`);
  }
}
process.exit(exitCode);
