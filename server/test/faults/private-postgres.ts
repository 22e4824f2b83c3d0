import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../free-port.js';

const exec = promisify(execFile);

/** The newest PostgreSQL installed the Debian way; PG_BIN overrides it. */
function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const bin = `/usr/lib/postgresql/${versions[0]}/bin`;
  if (!existsSync(`${bin}/initdb`)) throw new Error(`no initdb in ${bin}; set PG_BIN`);
  return bin;
}

/**
 * A PostgreSQL cluster of our own (the shared one must never be stopped): initdb into a temp
 * dir, trust auth, on a free loopback port, its socket in the same dir. initdb refuses to run as
 * root, so as root every command runs as the `postgres` user. fsync off: nothing here survives
 * the test, and a crash of the cluster is what we cause on purpose.
 */
export interface PrivatePostgres {
  url: string;
  start(): Promise<void>;
  /** `-m immediate`: the postmaster and every backend die at once, like a crash. */
  stopImmediately(): Promise<void>;
  destroy(): Promise<void>;
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-faults-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number((await exec('id', ['-u', 'postgres'])).stdout.trim()), Number((await exec('id', ['-g', 'postgres'])).stdout.trim()));
  const run = (tool: string, args: string[]) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : exec(join(bin, tool), args);
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  let running = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    async stopImmediately() {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
