import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARD_DIR, DIST_DIR, REPO_DIR } from './paths.ts';

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Builds the dashboard when dist/ is missing or older than its sources (or the SDK's). */
export function ensureBuilt(): void {
  const index = join(DIST_DIR, 'index.html');
  const sources = [join(DASHBOARD_DIR, 'src'), join(DASHBOARD_DIR, 'index.html'), join(DASHBOARD_DIR, 'public'), join(DASHBOARD_DIR, 'vite.config.ts'), join(REPO_DIR, 'sdk', 'src')];
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.filter(existsSync).map(newestMtime))) return;
  execFileSync(process.execPath, [join(REPO_DIR, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: DASHBOARD_DIR, stdio: 'inherit' });
}
