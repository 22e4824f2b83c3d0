// The idle-GC state (docs/PERFORMANCE.md): whether a full GC while a Gatehouse server idles before
// its first requests (V8's memory reducer runs one) leaves the process slower for life, as it once
// did through process.nextTick's type feedback. This measures CPU per GET /v1/users/me (embedded)
// of fresh servers, interleaved, in up to three set-ups:
//   this checkout, no forced GC;  this checkout, one full GC after setup and before any load;
//   and, given --before DIR (another checkout, e.g. `git archive <commit> server` extracted there,
//   with DIR/node_modules a symlink to this one's), that one with the same GC.
//   npm run idle-gc -w bench -- [--rounds 3] [--duration 4] [--before DIR]
import autocannon from 'autocannon';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { prepareAccount } from './lib/gatehouse-account.js';
import { newDeployment, startGatehouse, teardown } from './lib/gatehouse.js';
import { cpuTimeUs } from './lib/processes.js';
import { median } from './lib/report.js';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '4' }, before: { type: 'string' } } });
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const gcOnSignal = fileURLToPath(new URL('./lib/gc-on-signal.js', import.meta.url));
const SETUPS = [
  { id: 'no-gc', label: 'this checkout, no forced GC', root: repoRoot, gc: false },
  { id: 'gc', label: 'this checkout, full GC before the load', root: repoRoot, gc: true },
  ...(opts.before ? [{ id: 'before', label: `${opts.before}, full GC before the load`, root: opts.before, gc: true }] : []),
];

async function measure(setup) {
  const deployment = newDeployment('embedded', setup.root, setup.id);
  try {
    await startGatehouse(deployment, { nodeArgs: ['--expose-gc', '--import', gcOnSignal] });
    const { token } = await prepareAccount(deployment, { agents: 1 });
    await sleep(300); // no request in flight, so no nextTick record alive: an idle server
    if (setup.gc) process.kill(deployment.server.pid, 'SIGUSR2');
    await sleep(300);
    const options = { url: `${deployment.base}/v1/users/me`, connections: 100, pipelining: 1, headers: { authorization: `Bearer ${token}` } };
    await autocannon({ ...options, duration: 2 }); // warm-up
    const before = cpuTimeUs(deployment.server.pid);
    const result = await autocannon({ ...options, duration: Number(opts.duration) });
    if (result.non2xx || result.errors) throw new Error(`${setup.id}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return (cpuTimeUs(deployment.server.pid) - before) / result.requests.total;
  } finally {
    await teardown(deployment);
  }
}

const results = Object.fromEntries(SETUPS.map((s) => [s.id, []]));
for (let round = 0; round < Number(opts.rounds); round++) {
  for (const setup of round % 2 ? [...SETUPS].reverse() : SETUPS) {
    const us = await measure(setup);
    results[setup.id].push(us);
    console.log(`idle-gc: round ${round + 1}/${opts.rounds} ${setup.label.padEnd(50)} ${us.toFixed(1)} µs of CPU a request`);
  }
}
const base = median(results['no-gc']);
console.log('\n| set-up | CPU µs a request (median) | rounds | ÷ no forced GC |\n|---|---:|---|---:|');
for (const setup of SETUPS) {
  const xs = results[setup.id];
  console.log(`| ${setup.label} | ${median(xs).toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(', ')} | ${(median(xs) / base).toFixed(2)}× |`);
}
process.exit(0);
