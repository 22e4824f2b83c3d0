/**
 * A real `gatehouse serve` for the SDK suites: its own process on a free loopback port, its own
 * SQLite file in a temp directory, torn down with the suite. The environment is built from
 * scratch, so the CI run with DATABASE_URL/REDIS_URL set does not point it at shared servers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const STRONG_PASSWORD = 'Vivid-Otter-Quarry-42';

export interface LiveServer {
  base: string;
  output(): string;
  /** Runs the gatehouse CLI against the same database (e.g. `users grant-admin`). */
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  stop(): Promise<void>;
}

/** A port the OS just handed out, so parallel suites do not collide. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function runGatehouse(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(REPO_ROOT, 'server', 'bin', 'gatehouse.js'), ...args], {
    cwd: join(REPO_ROOT, 'server'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function startLiveServer(extraEnv: Record<string, string> = {}): Promise<LiveServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sdk-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    DATABASE_URL: `sqlite:${join(dir, 'gatehouse.db')}`,
    LOG_LEVEL: 'warn',
    // Every suite signs up many users from one IP; the per-IP limit has its own test.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '10000',
    ...extraEnv,
  };
  const child = runGatehouse(['serve'], env);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };

  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) {
      return {
        base,
        output: () => output,
        stop,
        cli: (args) =>
          new Promise((resolve) => {
            const run = runGatehouse(args, env);
            let out = '';
            run.stdout!.on('data', (d: Buffer) => (out += d.toString()));
            run.stderr!.on('data', (d: Buffer) => (out += d.toString()));
            run.once('exit', (code) => resolve({ code, output: out }));
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  await stop();
  throw new Error(`gatehouse serve did not start:\n${output}`);
}

let counter = 0;
export function uniqueEmail(): string {
  return `sdk${++counter}.${Math.random().toString(36).slice(2, 10)}@example.com`;
}
