import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The API the dev server forwards /v1 to (`npm run dev -w dashboard` beside `npm start`).
const apiTarget = process.env.GATEHOUSE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  resolve: {
    // The SDK straight from its TypeScript source: no separate SDK build before this one.
    alias: { '@gatehouse/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Nothing inlined as data: URIs or inline scripts: the CSP allows only same-origin files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: { proxy: { '/v1': apiTarget } },
  preview: { proxy: { '/v1': apiTarget } },
});
