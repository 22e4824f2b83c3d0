import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ServerProcess {
  base: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const SERVER_DIR = join(import.meta.dirname, '..');

/** `gatehouse serve` as its own process on a free loopback port; resolves once /healthz answers. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  // A random port can be taken by another socket on the machine: pick another one then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, 20000 + Math.floor(Math.random() * 30000));
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startOnce(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['bin/gatehouse.js', 'serve'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Up to 30 s: under a loaded CI machine tsx and the migrations can take a while.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) {
      return {
        base, child, output: () => output,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${output}`);
}

export async function postJson(base: string, path: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}
