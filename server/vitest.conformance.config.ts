import { defineConfig } from 'vitest/config';

/** `npm run test:conformance` (run by .ci/run; not part of `npm test`). */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
