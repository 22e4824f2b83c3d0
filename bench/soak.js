#!/usr/bin/env node
// Soak: one Gatehouse server under a steady mixed load for a long time (10 minutes by default),
// its memory, event loop and CPU read from /metrics (every second) and /proc, one sample every 10 s; at the end, a linear
// trend of memory after warm-up against a stated threshold, the error count and a table. Not a
// test: it takes minutes and judges trends, not fixed numbers. See README.md.
import { availableParallelism, cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { cleanupAll, onCleanup } from './lib/cleanup.js';
import { prepareAccount } from './lib/gatehouse-account.js';
import { METRICS_TOKEN, newDeployment, startGatehouse, teardown } from './lib/gatehouse.js';
import { cpuTimeUs, stopAll } from './lib/processes.js';
import { parsePrometheus } from './lib/prometheus.js';
import { startSoakLoad } from './lib/soak-load.js';
import { analyse, sampleTable, verdictText } from './lib/soak-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HELP = `Usage: npm run soak -w bench [-- options]

  --mode M            embedded (SQLite, no Redis; default) or redis (PostgreSQL + Redis)
  --duration S        seconds of load (default 600)
  --rate N            requests per second, steady (default 200)
  --login-rate N      logins per second, on top (default 1)
  --interval S        seconds between samples (default 10; /metrics is read every second)
  --warmup S          seconds left out of the trend (default: the smaller of 120 and a quarter of --duration)
  --max-growth MB     memory growth per hour above which the trend fails (MiB/hour, default 32)
  --json FILE         also write the samples and the analysis as JSON`;

const { values: opts } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    duration: { type: 'string', default: '600' },
    rate: { type: 'string', default: '200' },
    'login-rate': { type: 'string', default: '1' },
    interval: { type: 'string', default: '10' },
    warmup: { type: 'string' },
    'max-growth': { type: 'string', default: '32' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
if (!['embedded', 'redis'].includes(opts.mode)) throw new Error(`--mode must be embedded or redis, not ${opts.mode}`);
const duration = Number(opts.duration);
const rate = Number(opts.rate);
const interval = Number(opts.interval);
const warmupSeconds = opts.warmup !== undefined ? Number(opts.warmup) : Math.min(120, Math.floor(duration / 4));
const maxGrowthMiBPerHour = Number(opts['max-growth']);
if (!(duration >= 3 * interval && rate > 0 && Number.isInteger(interval) && interval > 0 && warmupSeconds >= 0 && warmupSeconds < duration)) throw new Error('need a whole --interval, --duration ≥ 3 × --interval, --warmup < --duration, a positive --rate');
const log = (line) => console.error(line);

// Never leave a server, a database or a temp dir behind, whatever ends the run.
const cleanup = async () => {
  await stopAll();
  await cleanupAll();
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

/**
 * Anonymous resident memory (heap, malloc, buffers) from /proc on Linux. Total RSS also counts
 * file-backed pages (node's own binary and libraries), which the kernel drops and reloads as it
 * pleases (here DAMON reclaims cold pages): they move RSS by tens of MiB without the process
 * doing anything, so the trend is judged on this part.
 */
async function rssAnon(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^RssAnon:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? NaN : Number(kb) * 1024;
}

/** The server's own numbers, from /metrics and /proc. */
async function scrape(base, pid) {
  const m = parsePrometheus(await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(5_000) }).then((r) => r.text()));
  return {
    rss: m.process_resident_memory_bytes, rssAnon: await rssAnon(pid), heapUsed: m.nodejs_heap_size_used_bytes,
    heapTotal: m.nodejs_heap_size_total_bytes, external: m.nodejs_external_memory_bytes,
    oldSpace: m['nodejs_heap_space_size_used_bytes{space="old"}'],
    // prom-client resets its event-loop histogram at every scrape: these cover the last second.
    loopP99: m.nodejs_eventloop_lag_p99_seconds * 1000, loopMax: m.nodejs_eventloop_lag_max_seconds * 1000,
  };
}

/**
 * One sample per interval from a scrape every second. The heap saw-tooths with every minor GC,
 * so the sample keeps its floor (the lowest reading, right after a GC): a leak raises the floor,
 * allocation between collections does not. RSS moves slowly and is taken as last read.
 */
function summarise(scrapes, window, extra) {
  const sorted = window.latencies.sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
  const min = (f) => Math.min(...scrapes.map((x) => x[f]));
  const max = (f) => Math.max(...scrapes.map((x) => x[f]));
  return {
    ...extra, answers: window.answers, errors: window.errors, errorSamples: window.errorSamples, byKind: window.byKind,
    inFlight: window.inFlight, agents: window.agents, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0,
    rss: scrapes.at(-1).rss, rssAnon: scrapes.at(-1).rssAnon, heapTotal: scrapes.at(-1).heapTotal, external: scrapes.at(-1).external, heapUsed: min('heapUsed'), heapUsedPeak: max('heapUsed'), oldSpace: min('oldSpace'),
    loopP99: max('loopP99'), loopMax: max('loopMax'),
  };
}

async function main() {
  const deployment = newDeployment(opts.mode, ROOT, `soak ${opts.mode}`);
  onCleanup(`gatehouse (${opts.mode})`, () => teardown(deployment));
  log(`soak: starting Gatehouse (${opts.mode})`);
  await startGatehouse(deployment);
  const account = await prepareAccount(deployment);
  log(`soak: ${rate} req/s + ${opts['login-rate']} login/s for ${duration} s, a sample every ${interval} s (warm-up ${warmupSeconds} s)`);

  const load = startSoakLoad({ base: deployment.base, account, rate, loginRate: Number(opts['login-rate']) });
  const started = Date.now();
  const samples = [];
  let cpuBefore = cpuTimeUs(deployment.server.pid);
  let last = started;
  try {
    await scrape(deployment.base, deployment.server.pid); // starts the event-loop histogram afresh
    for (let k = 1; k * interval <= duration; k++) {
      const scrapes = [];
      for (let j = 1; j <= interval; j++) {
        await sleep(started + ((k - 1) * interval + j) * 1000 - Date.now());
        scrapes.push(await scrape(deployment.base, deployment.server.pid));
      }
      const now = Date.now();
      const cpu = cpuTimeUs(deployment.server.pid);
      const seconds = (now - last) / 1000;
      const s = summarise(scrapes, load.window(), {
        t: k * interval, elapsed: (now - started) / 1000, seconds,
        cpuSeconds: cpu !== null && cpuBefore !== null ? (cpu - cpuBefore) / 1e6 : NaN,
      });
      last = now;
      cpuBefore = cpu;
      samples.push(s);
      log(`soak: t=${s.t}s ${(s.answers / s.seconds).toFixed(0)} req/s, ${s.errors} errors, p99 ${s.p99.toFixed(1)} ms, ` +
        `RSS ${(s.rss / 2 ** 20).toFixed(1)} MiB (anon ${(s.rssAnon / 2 ** 20).toFixed(1)}), heap floor ${(s.heapUsed / 2 ** 20).toFixed(1)} MiB, loop p99 ${s.loopP99.toFixed(1)} ms` +
        (s.errorSamples.length ? `; e.g. ${s.errorSamples.join('; ')}` : ''));
    }
  } finally {
    await load.stop();
  }

  const analysis = analyse(samples, { warmupSeconds, rate, maxGrowthMiBPerHour });
  const setting = `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
  console.log(`## Soak: ${opts.mode}, ${rate} req/s + ${opts['login-rate']} login/s for ${duration} s\n`);
  console.log(`${setting}. Mix per 20 requests: 5 GET /v1/users/me (access token), 4 GET /v1/usage and 5 GET /v1/agents?limit=20 (API key), ` +
    `3 GET /v1/agents/{id} (access token), 1 POST /v1/agents (API key), 1 DELETE /v1/agents/{id} (access token); logins refresh the access token.\n`);
  console.log(verdictText(analysis, { maxGrowthMiBPerHour, warmupSeconds, duration }));
  console.log(`\n${sampleTable(samples, duration >= 300 ? 60 : interval)}`);
  if (opts.json) await writeFile(opts.json, JSON.stringify({ options: opts, setting, samples, analysis }, null, 2));
  return analysis.pass;
}

main()
  .then(async (pass) => {
    await cleanup();
    process.exit(pass ? 0 : 1);
  })
  .catch(async (error) => {
    log(`soak: ${error.stack ?? error}`);
    await cleanup();
    process.exit(1);
  });
