import { defineConfig } from 'vitest/config';

/** `npm test`: unit, route and process suites. Conformance, fuzz and fault suites have their own configs. */
export const SEPARATE_SUITES = ['test/conformance/**', 'test/fuzz/**', 'test/faults/**'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SEPARATE_SUITES],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores here: more workers only add contention (argon2 is CPU-bound).
    maxWorkers: 2,
  },
});
