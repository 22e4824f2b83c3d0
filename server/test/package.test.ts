/**
 * The server as a user installs it: `npm pack` of this package (prepack compiles dist/ and puts
 * the built dashboard in), installed from the registry into an empty folder outside the
 * repository, then `npx gatehouse serve` there: plain Node, SQLite under ./data, the dashboard
 * at /. The install must not pull the mobile, browser-build or test toolchains.
 *
 * The one liberty taken: better-sqlite3's install script (fetch a prebuilt binary, or compile
 * for about a minute) is skipped, and the same version's binary, already built for this Node in
 * the repository, is copied in, which is what its prebuilt download would put there.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { SERVER_DIR } from './server-process.js';

const { run, pack } = createRequire(import.meta.url)('../../scripts/packages.cjs') as {
  run(command: string, args: string[], options: { cwd: string }): Promise<string>;
  pack(dir: string, destination: string): Promise<{ tarball: string; files: string[] }>;
};

/** Packages a server install must never bring along. */
const TOOLCHAINS = ['vite', 'vitest', 'jest', 'expo', 'react-native', 'react', 'typescript', 'tsx', 'esbuild', '@playwright/test', 'playwright-core'];

describe('one version', () => {
  const versionOf = (dir: string) => (JSON.parse(readFileSync(join(SERVER_DIR, '..', dir, 'package.json'), 'utf8')) as { version: string }).version;
  const version = versionOf('server');

  it('for the server, the SDK and the React Native package, which depends on that SDK', () => {
    expect([versionOf('sdk'), versionOf('react-native')]).toEqual([version, version]);
    const native = JSON.parse(readFileSync(join(SERVER_DIR, '..', 'react-native', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(native.dependencies['@gatehouse/sdk']).toBe(version);
  });

  it('has its section in CHANGELOG.md', () => {
    const changelog = readFileSync(join(SERVER_DIR, '..', 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(new RegExp(`^## ${version.replace(/\./g, '\\.')}\\b`, 'm'));
  });
});

// It reads no DATABASE_URL or REDIS_URL: the second CI pass (with them set) would run it again for nothing.
describe.skipIf(Boolean(process.env.DATABASE_URL))('the packed server, installed in an empty folder', () => {
  let packDir: string;
  let folder: string;
  let files: string[];
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    packDir = mkdtempSync(join(tmpdir(), 'gatehouse-server-pack-'));
    const packed = await pack(SERVER_DIR, packDir);
    files = packed.files;
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-empty-'));
    writeFileSync(join(folder, 'package.json'), `${JSON.stringify({ name: 'my-gatehouse', version: '1.0.0', private: true }, null, 2)}\n`);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', packed.tarball], { cwd: folder });
    const binary = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    mkdirSync(join(folder, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    copyFileSync(join(SERVER_DIR, '..', binary), join(folder, binary));
  }, 240_000);

  afterAll(() => {
    server?.kill('SIGKILL');
    rmSync(packDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it('carries the compiled server, its bin and the dashboard, and no TypeScript or tests', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'bin/gatehouse.js', 'dist/cli.js', 'dist/main.js', 'dashboard-dist/index.html']));
    // No sources, tests or source maps (they point at src/, which the package does not carry).
    expect(files.filter((f) => /\.ts$|^src\/|^test\/|\.test\.|\.map$/.test(f))).toEqual([]);
    // postpack took the dashboard's copy away again: a checkout serves the dashboard's own build.
    expect(existsSync(join(SERVER_DIR, 'dashboard-dist'))).toBe(false);
  });

  it('installs none of the mobile, browser-build or test toolchains', () => {
    const installed = readdirSync(join(folder, 'node_modules')).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(folder, 'node_modules', name)).map((scoped) => `${name}/${scoped}`) : [name]);
    expect(installed).toContain('fastify');
    expect(installed.filter((name) => TOOLCHAINS.includes(name) || name.startsWith('@expo/') || name.startsWith('@vitest/'))).toEqual([]);
  });

  it('`npx gatehouse serve` starts on SQLite under ./data and serves the API and the dashboard', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn('npx', ['gatehouse', 'serve'], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    let healthy = false;
    for (const deadline = Date.now() + 30_000; !healthy && Date.now() < deadline && server.exitCode === null;) {
      healthy = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    expect(healthy, `the server did not start:\n${output}`).toBe(true);

    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">'); // the dashboard's page, not the not-built one
    const email = `packed.${randomBytes(4).toString('hex')}@example.com`;
    const registered = await fetch(`${base}/v1/auth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'Vivid-Otter-Quarry-42', name: 'Packed' }),
    });
    expect(registered.status).toBe(201);
    expect(output).toContain('"database":"sqlite"');
    expect(existsSync(join(folder, 'data'))).toBe(true);
  }, 60_000);
});
