import type { Parameters as FcParameters } from 'fast-check';

/**
 * Budgets for the fuzz suite. The defaults keep `npm run test:fuzz` at a few minutes on two
 * shared cores; FUZZ_RUNS raises every property's run count (a nightly job, a hunt), FUZZ_SEED
 * replays a failure (fast-check prints the seed and path of every counterexample).
 */
function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Runs per property; each endpoint is one property, so the suite sends about 50 × this. */
export const FUZZ_RUNS = positiveInt('FUZZ_RUNS', 40);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const PATH = process.env.FUZZ_PATH || undefined;

/** A request slower than this is a finding (a hang, a catastrophic regex, a missing bound). */
export const REQUEST_TIME_BOUND_MS = positiveInt('FUZZ_TIME_BOUND_MS', 2_000);

/** fast-check parameters: `scale` lets a costly property (argon2 per run) take a fraction. */
export function fuzzParameters<T>(scale = 1): FcParameters<T> {
  return {
    numRuns: Math.max(1, Math.round(FUZZ_RUNS * scale)),
    ...(SEED !== undefined ? { seed: SEED } : {}),
    ...(PATH !== undefined ? { path: PATH } : {}),
  };
}
