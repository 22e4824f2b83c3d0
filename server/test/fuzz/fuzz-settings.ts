import type { Parameters as FcParameters } from 'fast-check';

/**
 * Budgets for the fuzz suite. The defaults keep `npm run test:fuzz` under a minute on two shared
 * cores, with a fixed seed: CI runs the same sample every time, so a red run is a change in
 * behaviour, never a luckier draw. A hunt asks for more and for fresh draws:
 * `FUZZ_RUNS=1000 FUZZ_SEED=random npm run test:fuzz`. FUZZ_SEED=<n> replays a failure
 * (fast-check prints the seed and path of every counterexample).
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
/** The sample CI runs; any other number replays that draw, `random` lets fast-check draw a new one. */
const DEFAULT_SEED = 20261128;
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED;
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
