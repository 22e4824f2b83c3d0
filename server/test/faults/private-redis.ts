import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { within } from './http.js';
import { freePort } from '../free-port.js';

/**
 * A redis-server of our own on a free loopback port (the shared one must never be stopped), with
 * no persistence: a restart comes back empty, so keys seen afterwards were written afterwards.
 */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: connections drop at once, like a crash. */
  kill(): Promise<void>;
  /** A client for looking inside (KEYS …); disconnected by `destroy`. */
  client(): Redis;
  destroy(): Promise<void>;
}

export async function createPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';
  let inspector: Redis | undefined;
  const answers = () =>
    new Promise<boolean>((resolve) => {
      const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {});
      probe.connect().then(() => probe.ping()).then((r) => resolve(r === 'PONG'), () => resolve(false)).finally(() => probe.disconnect());
    });
  const self: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      await within(10_000, `redis-server on ${port} answering PING`, answers).catch((error: Error) => {
        throw new Error(`${error.message}:\n${output.slice(-1_000)}`);
      });
    },
    async kill() {
      const dying = child;
      if (!dying || dying.exitCode !== null) return;
      const exited = new Promise((resolve) => dying.once('exit', resolve));
      dying.kill('SIGKILL');
      await exited;
    },
    client() {
      inspector ??= new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
      return inspector;
    },
    async destroy() {
      inspector?.disconnect();
      await self.kill();
    },
  };
  return self;
}
