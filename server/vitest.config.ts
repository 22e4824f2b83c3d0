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
    // A worker runs its files one after another in the same module graph instead of importing
    // the whole server again for each of ~100 files (about 1.5 s of CPU each): the suite went
    // from 170 to 91 s. Every file builds its own app, database and clock (test/harness.ts), and
    // a test that fakes timers or changes globals puts them back in an afterEach.
    isolate: false,
    // Two cores here: more workers only add contention (argon2 is CPU-bound).
    maxWorkers: 2,
    // `npm run coverage`: V8's line and branch coverage of src/ (coverage/coverage-summary.json).
    coverage: { provider: 'v8', include: ['src/**/*.ts'], exclude: ['src/**/*.test.ts'], reporter: ['text-summary', 'json-summary'] },
  },
});
