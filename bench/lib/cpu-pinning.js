// Separate cores for the load generator and the servers under test (throughput part, `--pin`).
//
// Unpinned, autocannon (in this process) and the server it loads share the cores and the
// scheduler moves both about. Pinned, autocannon owns CPU 0 and every server under test the
// others, so a server's throughput is bounded by its own CPU per request, the same way for every
// target (ceiling, floor, Gatehouse, Better Auth). PostgreSQL and Redis stay where the system
// puts them. Off by default: on the 2-CPU machine of PERFORMANCE.md it changed neither the ratios
// nor their spread measurably (the spread comes mostly from one server process to the next); it
// is there for machines where the load generator and a server do fight over a core.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const taskset = (...args) => execFileSync('taskset', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The CPUs for `--pin`; fails when the machine cannot: fewer than 2 CPUs, or no `taskset`. */
export function planPinning(wanted) {
  if (!wanted) return null;
  const cpus = availableParallelism();
  if (cpus < 2) throw new Error('--pin needs at least 2 CPUs');
  try {
    taskset('-p', String(process.pid));
  } catch {
    throw new Error('--pin needs taskset (util-linux)');
  }
  return { loadCpus: '0', serverCpus: cpus === 2 ? '1' : `1-${cpus - 1}` };
}

export const describePinning = (plan) => (plan ? `load generator on CPU ${plan.loadCpus}, servers under test on CPU ${plan.serverCpus}` : 'not pinned');

/** Every thread of `pid` onto `cpus` (a taskset list such as `1` or `1-3`). */
function pin(pid, cpus) {
  taskset('-a', '-p', '-c', cpus, String(pid));
}

/**
 * Pins this process (the load generator) and the given server processes for the length of `run`,
 * then gives this process its former CPUs back (the servers are stopped by their owners).
 */
export async function whilePinned(plan, serverPids, run) {
  if (!plan) return run();
  const before = taskset('-p', String(process.pid)).split(':').pop().trim(); // a hex mask
  for (const pid of new Set(serverPids)) pin(pid, plan.serverCpus);
  pin(process.pid, plan.loadCpus);
  try {
    return await run();
  } finally {
    taskset('-a', '-p', before, String(process.pid));
  }
}
