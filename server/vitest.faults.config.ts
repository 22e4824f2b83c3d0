import { defineConfig } from 'vitest/config';

/** `npm run test:faults` (run by .ci/run; not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time: the suite mostly waits (restarts, timeouts, slow clients), so this
    // takes it from 77 to 32 s on two cores; each file's servers and databases are its own.
    maxWorkers: 3,
  },
});
