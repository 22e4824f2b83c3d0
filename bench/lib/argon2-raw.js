// The floor for a login: one raw argon2 verify of the hash the server stored, measured in this
// process with the server's own @node-rs/argon2 (the same build, the same parameters).
import { cpuTimeUs } from './processes.js';
import { serverRequire } from './services.js';

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** `$argon2id$v=19$m=19456,t=2,p=1$…` → 'argon2id v=19 m=19456,t=2,p=1'. */
export function argon2Parameters(hash) {
  const [, algorithm, version, params] = hash.split('$');
  return `${algorithm} ${version} ${params}`;
}

/**
 * A target measured in-process: `parallel` verifies kept in flight (one at a time for the
 * latency floor; as many as the login load's connections for the throughput floor). Each
 * verify must succeed. CPU per verify is this process's, which does nothing else meanwhile.
 */
export function rawVerifyTarget({ root, hash, password, parallel, id, label }) {
  const { verify } = serverRequire(root)('@node-rs/argon2');
  return {
    id, mode: 'in-process', label,
    async measure(seconds) {
      const latencies = [];
      const cpuBefore = cpuTimeUs(process.pid);
      const started = performance.now();
      const deadline = started + seconds * 1000;
      const worker = async () => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          if (!(await verify(hash, password))) throw new Error('raw argon2 verify: the stored hash did not match its password');
          latencies.push(performance.now() - t0);
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      const elapsed = (performance.now() - started) / 1000;
      const cpuAfter = cpuTimeUs(process.pid);
      latencies.sort((a, b) => a - b);
      return {
        rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: latencies.length, seconds: elapsed,
        cpuUs: cpuBefore === null ? null : (cpuAfter - cpuBefore) / latencies.length, redisCpuUs: null,
      };
    },
  };
}
