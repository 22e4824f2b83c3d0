/**
 * `gatehouse serve` as its own process, for every suite that needs a real one: the server's
 * process, fault and multi-instance tests, and the SDK's and the dashboard's suites (they import
 * this file), so starting, waiting and stopping are written once.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface ServerProcess {
  base: string;
  child: ChildProcess;
  /** The environment it runs with (built from scratch: nothing of the test runner's leaks in). */
  env: Record<string, string>;
  /** Everything the process printed so far. */
  output(): string;
  /** Signals it (SIGKILL after 10 s if it has not exited), waits, and cleans up; the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const SERVER_DIR = join(import.meta.dirname, '..');
export const GATEHOUSE_BIN = join(SERVER_DIR, 'bin', 'gatehouse.js');

let built: Promise<unknown> | undefined;
/**
 * Compiles src/ to dist/ (scripts/build.mjs: about half a second, and it writes only what changed)
 * once per test process, before the first `gatehouse` it spawns: the bin runs dist/, so a suite
 * never spawns code older than the sources it tests.
 */
export function ensureServerBuilt(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, [join(SERVER_DIR, 'scripts', 'build.mjs')], { cwd: SERVER_DIR });
  return built;
}

/** `gatehouse serve` on a free loopback port; resolves once /healthz answers. */
/** More environment, or a function of the port the server will listen on (for values naming it). */
export type ExtraEnv = Record<string, string> | ((port: number) => Record<string, string>);

export async function startServer(env: ExtraEnv): Promise<ServerProcess> {
  // The port is free when asked for but another socket can take it before the server binds it.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, await freePort());
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

/**
 * The same on its own SQLite file in a new temporary directory, removed when it stops. The
 * environment is built from scratch, so CI's second pass (DATABASE_URL/REDIS_URL set for the
 * test runner) does not point it at the shared servers.
 */
export async function startServerOnFreshSqlite(env: ExtraEnv = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  try {
    const server = await startServer((port) => ({ DATABASE_URL: `sqlite:${join(dir, 'gatehouse.db')}`, ...(typeof env === 'function' ? env(port) : env) }));
    return {
      ...server,
      async stop(signal) {
        const code = await server.stop(signal);
        rmSync(dir, { recursive: true, force: true });
        return code;
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * One `gatehouse` CLI command (e.g. `users grant-admin`) with the given environment. A command
 * still running after `timeoutMs` (a `serve` that should have refused to start) is killed, and
 * its code is null.
 */
export async function runGatehouse(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  await ensureServerBuilt();
  return new Promise((resolve) => {
    const run = spawn(process.execPath, [GATEHOUSE_BIN, ...args], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    run.stdout.on('data', (d: Buffer) => (output += d.toString()));
    run.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => run.kill('SIGKILL'), timeoutMs);
    run.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function startOnce(extraEnv: ExtraEnv, port: number): Promise<ServerProcess> {
  await ensureServerBuilt();
  const base = `http://127.0.0.1:${port}`;
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, LOG_LEVEL: 'info', ...(typeof extraEnv === 'function' ? extraEnv(port) : extraEnv) };
  const child = spawn(process.execPath, [GATEHOUSE_BIN, 'serve'], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  // Up to 60 s: on a loaded CI machine (two cores, both test workers busy) the start and the
  // migrations have once taken over 30 s before the first line of output.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return { base, child, env, output: () => output, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  await exited;
  throw new Error(`server did not start:\n${output}`);
}

export async function postJson(base: string, path: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}
