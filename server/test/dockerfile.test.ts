/**
 * The repository's Dockerfile. What it promises is read from the file on every run: it packs the
 * server's tarball (the one package.test.ts installs in an empty folder), installs that tarball in
 * a build stage, and runs it in another stage as a non-root user with its data on a volume and a
 * HEALTHCHECK on /healthz.
 *
 * Building and running the image needs a Docker engine, which `npm test` cannot count on (CI's
 * machine has none). `GATEHOUSE_DOCKER_TEST=1 npm test -w server -- dockerfile` does it where one
 * runs: build, start, healthy, the API and the dashboard answer, the process is not root, and an
 * account survives a new container on the same volume. NODE_IMAGE / RUN_IMAGE in the environment
 * are passed on as build arguments (a machine without Docker Hub builds from local base images).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { SERVER_DIR } from './server-process.js';

const ROOT = join(SERVER_DIR, '..');

interface Instruction { keyword: string; args: string }
interface Stage { name?: string; from: string; instructions: Instruction[] }

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments gone). */
function stagesOf(text: string): Stage[] {
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [, from = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ from, name, instructions: [] });
    } else stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const stages = stagesOf(dockerfile);
const final = stages.at(-1)!;
const argsOf = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const finalEnv = Object.fromEntries(argsOf(final, 'ENV').flatMap((a) => [...a.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])));

describe('the Dockerfile', () => {
  it('packs the server with npm pack and installs that tarball, in stages of their own', () => {
    const runs = stages.map((s) => argsOf(s, 'RUN').join(' && '));
    const packing = runs.findIndex((r) => /npm pack --workspace server\b/.test(r));
    const installing = runs.findIndex((r) => /npm install --omit=dev\b.*gatehouse-\*\.tgz/.test(r));
    expect(packing, 'a stage runs npm pack of the server').toBeGreaterThanOrEqual(0);
    expect(installing, 'a later stage installs the packed tarball').toBeGreaterThan(packing);
    expect(installing).toBeLessThan(stages.length - 1);
    // The final stage takes the installed folder, not the checkout: no sources, no dev dependencies.
    expect(argsOf(final, 'COPY')).toEqual([expect.stringMatching(new RegExp(`^--from=${stages[installing]?.name}\\s`))]);
  });

  it('runs the installed package on plain Node as a user that is not root', () => {
    const user = argsOf(final, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    const cmd = JSON.parse(argsOf(final, 'CMD')[0]!) as string[];
    expect(cmd[0]).toBe('node');
    expect(cmd.slice(-2)).toEqual(['node_modules/gatehouse/bin/gatehouse.js', 'serve']);
  });

  it('keeps SQLite on the declared volume and checks /healthz on the port it listens on', () => {
    const volume = JSON.parse(argsOf(final, 'VOLUME')[0]!) as string[];
    expect(finalEnv.DATABASE_URL).toMatch(new RegExp(`^sqlite:${volume[0]}/`));
    expect(argsOf(final, 'EXPOSE')).toEqual([finalEnv.PORT]);
    const healthcheck = argsOf(final, 'HEALTHCHECK')[0]!;
    expect(healthcheck).toMatch(/CMD .*127\.0\.0\.1:.*process\.env\.PORT.*\/healthz/);
    expect(finalEnv.NODE_ENV).toBe('production');
  });

  it('builds from the sources alone: .dockerignore leaves out the host\'s installs, builds and data', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', 'data', '.git', '.env']));
  });
});

const docker = async (...args: string[]) => (await promisify(execFile)('docker', args, { maxBuffer: 64 * 1024 * 1024, timeout: 900_000 })).stdout.trim();

describe.runIf(process.env.GATEHOUSE_DOCKER_TEST === '1')('the image, built and run by a Docker engine', () => {
  const tag = `gatehouse-test:${randomBytes(4).toString('hex')}`;
  const volume = `gatehouse-test-${randomBytes(4).toString('hex')}`;
  const containers: string[] = [];
  const secret = randomBytes(32).toString('hex');

  afterAll(async () => {
    for (const id of containers) await docker('rm', '-f', id).catch(() => undefined);
    await docker('volume', 'rm', '-f', volume).catch(() => undefined);
    await docker('image', 'rm', '-f', tag).catch(() => undefined);
  });

  async function start(port: number) {
    // NODE_ENV=production wants SMTP_URL; a mail server that is never reached is enough to start.
    const id = await docker('run', '-d', '--network', 'host', '-v', `${volume}:/data`, '-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1',
      '-e', `GATEHOUSE_SECRET=${secret}`, '-e', 'SMTP_URL=smtp://127.0.0.1:1', '-e', `PUBLIC_URL=http://127.0.0.1:${port}`, tag);
    containers.push(id);
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      if (await docker('inspect', '-f', '{{.State.Health.Status}}', id) === 'healthy') return id;
      await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error(`not healthy:\n${await docker('logs', id)}`);
  }

  it('builds, turns healthy, serves the API and the dashboard as a non-root user, and keeps data on its volume', async () => {
    const buildArgs = ['NODE_IMAGE', 'RUN_IMAGE'].flatMap((name) => (process.env[name] ? ['--build-arg', `${name}=${process.env[name]}`] : []));
    await docker('build', '--network', 'host', ...buildArgs, '-t', tag, ROOT);
    const port = await freePort();
    const first = await start(port);
    expect(await docker('exec', first, 'id', '-u')).not.toBe('0');
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/`)).text()).toContain('<div id="app">');
    const email = `image.${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Vivid-Otter-Quarry-42';
    const registered = await fetch(`${base}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password, name: 'Image' }) });
    expect(registered.status).toBe(201);

    await docker('rm', '-f', first);
    await start(port);
    const login = await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: email, password }) });
    expect(login.status, await login.clone().text()).toBe(200);
  }, 1_200_000);
});
