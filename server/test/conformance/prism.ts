import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '../free-port.js';

/**
 * `prism proxy --errors <spec> <upstream>` (Stoplight Prism 5.14) as a child process on a free
 * loopback port. Prism forwards each request to the upstream and checks the request and the
 * answer against the document; see verdict.ts for how it reports what it found.
 */
export interface PrismProxy {
  base: string;
  output(): string;
  stop(): Promise<void>;
}

const PRISM_CLI = join(dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
const KEEP_OUTPUT = 200_000;

/**
 * validateRequest=false makes Prism forward requests it considers invalid, so a deliberately bad
 * request still reaches the server and the server's error answer is checked against the document.
 */
export async function startPrism(specFile: string, upstream: string, options: { validateRequest: boolean }): Promise<PrismProxy> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = [PRISM_CLI, 'proxy', '--errors', specFile, upstream, '--host', '127.0.0.1', '--port', String(port), '--cors=false', `--validate-request=${options.validateRequest}`, '--verboseLevel', 'warn'];
  const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // Prism logs every violation it sees; keep the tail for the failure message, not an unbounded buffer.
  const keep = (d: Buffer) => void (output = (output + d.toString()).slice(-KEEP_OUTPUT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };

  // /healthz is in the document and public: once Prism answers it, it has loaded the document.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return { base, output: () => output, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`prism proxy did not start (${args.slice(1).join(' ')}):\n${output}`);
}
