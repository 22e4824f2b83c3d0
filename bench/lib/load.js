// One load on one target (autocannon, plus the CPU the server spent per request), and the
// interleaved rounds every part of the benchmark is measured in.
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuTimeUs } from './processes.js';

/**
 * A target is what one row of a table measures:
 *   { id, mode, label, url, headers?, method?, body?, requests?, setupClient?, verifyBody?, connections?,
 *     overallRate?, process?, redis?, measure?, background?, countServed?, warmup? }
 * `measure(seconds)` replaces autocannon for targets measured in this process (raw argon2);
 * `background` is another target loaded at the same time and not reported (the login storm);
 * `countServed: false` keeps a target's requests out of its process's count in `served` (the
 * in-process reference: a CPU profile of the Gatehouse process is read per Gatehouse request).
 */
function autocannonOptions(target, seconds, connections) {
  return {
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    body: target.body,
    // A sequence each connection sends in turn (the mixed workload); else `url` alone.
    requests: target.requests,
    setupClient: target.setupClient,
    verifyBody: target.verifyBody,
    connections: target.connections ?? connections,
    overallRate: target.overallRate,
    duration: seconds,
    pipelining: 1,
  };
}

function assertClean(target, result) {
  if (result.non2xx || result.errors || result.timeouts || result.mismatches) {
    throw new Error(`FAILED: ${target.mode} ${target.label}: ${result.non2xx} non-2xx answers ${JSON.stringify(result.statusCodeStats)}, ` +
      `${result.errors} errors, ${result.timeouts} timeouts, ${result.mismatches} unexpected bodies`);
  }
  if (target.process && target.process.child.exitCode !== null) throw new Error(`FAILED: ${target.process.name} exited:\n${target.process.output()}`);
}

/**
 * Loads `target` for `seconds`. Besides throughput and latency it measures the CPU the server
 * process (and Redis, given `redisProbe`) spent per request: on a shared machine throughput
 * moves with everyone else's work, CPU per request much less. `served` counts requests per
 * server process, to express CPU profiles per request.
 */
export async function load(target, seconds, { connections, redisProbe = null, served = null }) {
  if (target.measure) return target.measure(seconds);
  // A background load starts first and ends last, so it covers the whole measured window.
  const background = target.background
    ? autocannon(autocannonOptions(target.background, seconds + 1, connections))
    : null;
  if (background) await sleep(500);
  const cpuBefore = target.process ? cpuTimeUs(target.process.pid) : null;
  const redisBefore = target.redis ? await redisProbe.cpuTimeUs() : null;
  const result = await autocannon(autocannonOptions(target, seconds, connections));
  const cpuAfter = target.process ? cpuTimeUs(target.process.pid) : null;
  const redisAfter = target.redis ? await redisProbe.cpuTimeUs() : null;
  assertClean(target, result);
  if (background) assertClean(target.background, await background);
  if (served && target.process && target.countServed !== false) served.set(target.process, (served.get(target.process) ?? 0) + result.requests.total);
  // While a background load runs the server's CPU is shared by both: per request it means nothing.
  const perRequest = (before, after) => (before === null || after === null || background ? null : (after - before) / result.requests.total);
  return {
    rps: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, requests: result['2xx'], seconds: result.duration,
    bytesPerResponse: result.throughput.total / result.requests.total,
    cpuUs: perRequest(cpuBefore, cpuAfter), redisCpuUs: target.redis ? perRequest(redisBefore, redisAfter) : null,
  };
}

function progressLine(target, m, round, rounds) {
  const cpu = m.cpuUs === null || m.cpuUs === undefined ? '' : `  CPU ${m.cpuUs.toFixed(0)} µs/req${m.redisCpuUs === null || m.redisCpuUs === undefined ? '' : ` + Redis ${m.redisCpuUs.toFixed(0)}`}`;
  const bytes = m.bytesPerResponse ? `  ${Math.round(m.bytesPerResponse)} B/resp` : '';
  const ms = (v) => (v < 10 ? v.toFixed(1) : v.toFixed(0));
  return `bench: round ${round}/${rounds} ${target.mode.padEnd(14)} ${target.label.padEnd(40)} ${Math.round(m.rps).toString().padStart(7)} req/s  ` +
    `p50 ${ms(m.p50)} ms  p99 ${ms(m.p99)} ms${cpu}${bytes}`;
}

/**
 * Warm-up for every target, then `rounds` rounds that each load every target once. The order
 * rotates every round, so a burst of other work on the machine hits all targets alike instead of
 * spoiling one, and no target always runs right after the same neighbour.
 * Returns { [target.id]: [one measurement per round] }.
 */
export async function interleavedRounds(targets, { rounds, duration, warmup, log, ...loadOptions }) {
  for (const t of targets) {
    const seconds = t.warmup ?? warmup; // a target's own: a process that served nothing before it
    if (seconds > 0) await load(t, seconds, loadOptions);
    log(`bench: warmed up ${t.mode} ${t.label}`);
  }
  const results = Object.fromEntries(targets.map((t) => [t.id, []]));
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const m = await load(t, duration, loadOptions);
      results[t.id][r] = m;
      log(progressLine(t, m, r + 1, rounds));
      await sleep(250);
    }
  }
  return results;
}
