// Child processes for the servers under test: start, wait until they answer, stop for sure.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port the kernel just handed out on loopback (closed again before the child binds it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Node flags `npm start` runs Gatehouse with, read from the root package.json's start script
 * (`node <flags> server/bin/gatehouse.js serve`). Every server under test gets them, the ceiling
 * and the peer too, so a ratio compares code, not runtime flags.
 */
export const SERVER_NODE_FLAGS = (() => {
  const start = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start;
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) server\/bin\/gatehouse\.js serve$/.exec(start);
  if (!match) throw new Error(`package.json "start" is not "node [--flags] server/bin/gatehouse.js serve": ${start}`);
  return match[1].trim().split(' ').filter(Boolean);
})();

const running = new Set();
const commands = new Set();

/**
 * Starts `node <SERVER_NODE_FLAGS> <args>` (or other `nodeFlags`) with `env` added to this process's environment. Output is kept (the
 * last 64 KiB) and shown only when something goes wrong, so a failed start explains itself.
 */
export function startProcess(name, args, env, cwd, { nodeFlags = SERVER_NODE_FLAGS } = {}) {
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-65_536);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const handle = { name, child, exited, output: () => output, pid: child.pid };
  running.add(handle);
  exited.then(() => running.delete(handle));
  return handle;
}

/** Polls `url` until it answers 200; fails with the child's output if it dies or takes too long. */
export async function waitUntilServing(handle, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  handle.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died) throw new Error(`${handle.name} exited during start-up:\n${handle.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${handle.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${handle.output()}`);
}

/** SIGTERM (graceful: a --cpu-prof profile is written on a clean exit), SIGKILL after a grace. */
export async function stopProcess(handle, graceMs = 12_000) {
  if (handle.child.exitCode !== null || handle.child.signalCode !== null) return;
  handle.child.kill('SIGTERM');
  const timer = setTimeout(() => handle.child.kill('SIGKILL'), graceMs);
  await handle.exited;
  clearTimeout(timer);
}

/** Every server still running, and every command (a bulk load, the CLI) still in progress. */
export async function stopAll() {
  for (const child of commands) child.kill('SIGKILL');
  await Promise.all([...running].map((h) => stopProcess(h)));
}

/** Runs `command args` to completion; resolves with stdout, rejects with stderr on failure. */
export function run(command, args, env = {}, cwd = undefined, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    commands.add(child);
    child.once('exit', () => commands.delete(child));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(stdout.trim());
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr || stdout}`));
    });
  });
}

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** CPU time (user + system, all threads) a process has used so far, in µs; null off Linux. */
export function cpuTimeUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
