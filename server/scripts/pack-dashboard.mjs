#!/usr/bin/env node
/**
 * `npm pack` of the server (prepack): puts the built dashboard into the package as
 * `dashboard-dist/`, building it first when the repository has none, so an installed `gatehouse
 * serve` serves it at / with nothing else installed. `--remove` (postpack) takes the copy away
 * again: in a checkout the server serves the dashboard's own build (src/http/dashboard.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serverDir = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const dashboardDir = join(serverDir, '..', 'dashboard');
const packaged = join(serverDir, 'dashboard-dist');

rmSync(packaged, { recursive: true, force: true });
if (!process.argv.includes('--remove')) {
  if (!existsSync(join(dashboardDir, 'dist', 'index.html'))) {
    // The build's output goes to stderr: `npm pack --json` prints its answer on stdout, where a line of vite's would make it unreadable.
    const result = spawnSync('npm', ['run', 'build'], { cwd: dashboardDir, stdio: ['ignore', process.stderr, process.stderr] });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  cpSync(join(dashboardDir, 'dist'), packaged, { recursive: true });
}
