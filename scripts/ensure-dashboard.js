#!/usr/bin/env node
// `npm start` runs this first (prestart): builds the dashboard when dashboard/dist is missing, so
// `npm ci && npm start` serves it at /. A failed build does not stop the start: the API still runs
// and / says how to build the dashboard.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const index = join(root, 'dashboard', 'dist', 'index.html');

if (!existsSync(index)) {
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    console.warn('dashboard: not built, and Vite is not installed (npm ci without dev dependencies?); / will say how to build it.');
  } else {
    console.log('dashboard: dashboard/dist is missing, building it once (npm run build -w dashboard)…');
    const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: join(root, 'dashboard'), stdio: 'inherit' });
    if (result.status !== 0 || !existsSync(index)) console.warn('dashboard: the build failed; starting the API anyway (/ says how to build the dashboard).');
    else console.log('dashboard: built.');
  }
}
