import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The SDK from its TypeScript source, as the build takes it (vite.config.ts).
  resolve: { alias: { '@gatehouse/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // A build, a real server and a real browser: slow steps, one file at a time.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
