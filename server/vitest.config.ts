import { defineConfig } from 'vitest/config';

/** `npm test`: unit, route and process suites. Conformance, fuzz and fault suites have their own configs. */
export const SEPARATE_SUITES = ['test/conformance/**', 'test/fuzz/**', 'test/faults/**'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SEPARATE_SUITES],
    testTimeout: 30_000,
    // A suite's beforeAll builds a whole app (migrations, modules and their first imports); on two
    // cores shared with a process-spawning suite that has taken just over 30 s in CI. Still bounded.
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores here: more workers only add contention (argon2 is CPU-bound).
    maxWorkers: 2,
  },
});
