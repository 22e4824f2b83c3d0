import { defineConfig } from 'vitest/config';

/**
 * `npm run test:fuzz` (run by .ci/run; not part of `npm test`). FUZZ_RUNS scales every
 * property's run count (default 40, see test/fuzz/fuzz-settings.ts), so it scales the per-test
 * time limit too: a long hunt must not be cut short by a limit sized for the default.
 */
const runs = Number(process.env.FUZZ_RUNS) || 40;
const timeout = Math.max(120_000, Math.ceil((runs / 40) * 120_000));

export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.test.ts'],
    testTimeout: timeout,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time: the injection scan (about 30 s) mostly waits on sqlmap, a process of
    // its own, while the other files fill the second core; and one module graph per worker.
    maxWorkers: 2,
    isolate: false,
  },
});
