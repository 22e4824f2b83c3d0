import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_DIR } from './paths.ts';

export interface RunningServer {
  base: string;
  /** Everything the server printed so far (JSON log lines; mails are logged without SMTP_URL). */
  output(): string;
  /** The token of the newest mailed link to `page` (`verify-email`, `reset-password`). */
  mailedToken(page: 'verify-email' | 'reset-password'): string | null;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `gatehouse serve` as its own process on a free loopback port, on a fresh SQLite file. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-dashboard-test-'));
  const child = spawn(process.execPath, ['server/bin/gatehouse.js', 'serve'], {
    cwd: REPO_DIR,
    // Only what the test chooses: an outer DATABASE_URL/REDIS_URL (CI's second pass) must not leak in.
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp',
      PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base,
      DATABASE_URL: `sqlite:${join(dataDir, 'gatehouse.db')}`,
      LOG_LEVEL: 'info', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) {
      return {
        base,
        output: () => output,
        mailedToken(page) {
          const matches = [...output.matchAll(new RegExp(`/${page}\\?token=([A-Za-z0-9_.~%-]+)`, 'g'))];
          return matches.length ? decodeURIComponent(matches[matches.length - 1]![1]!) : null;
        },
        stop,
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`server did not start:\n${output}`);
}
