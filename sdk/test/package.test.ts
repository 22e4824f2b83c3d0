/**
 * What a user installs: `npm pack` of the SDK, installed into a fresh project outside this
 * repository. There `require` and `import` both load it, and TypeScript finds its types from a
 * CommonJS and from an ES module file alike.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';


const SDK_DIR = join(import.meta.dirname, '..');
// A plain CommonJS helper shared with react-native/'s Jest suite.
const { run, installIntoFreshProject, pack } = createRequire(import.meta.url)('../../scripts/packages.cjs') as {
  run(command: string, args: string[], options: { cwd: string }): Promise<string>;
  installIntoFreshProject(tarballs: string[], extraNpmArgs?: string[]): Promise<string>;
  pack(dir: string, destination: string): Promise<{ tarball: string; files: string[] }>;
};
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the packed SDK, installed elsewhere', () => {
  let packDir: string;
  let project: string;
  let files: string[];
  beforeAll(async () => {
    packDir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
    const packed = await pack(SDK_DIR, packDir);
    files = packed.files;
    project = await installIntoFreshProject([packed.tarball]);
  }, 120_000);
  afterAll(() => {
    rmSync(packDir, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  const node = (args: string[]) => run(process.execPath, args, { cwd: project });

  it('carries the builds, the license and the readme, and neither sources nor tests', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'openapi.json', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts']));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('scripts/'))).toEqual([]);
  });

  it('loads with require() and with import(), and works', async () => {
    await expect(node(['-e', "const g = require('@gatehouse/sdk'); console.log(typeof g.createGatehouse, typeof g.memoryTokenStore, require.resolve('@gatehouse/sdk'))"]))
      .resolves.toMatch(/^function function .*dist\/cjs\/index\.js$/);
    await expect(node(['--input-type=module', '-e', "const g = await import('@gatehouse/sdk'); console.log(typeof g.createGatehouse, Object.keys(g.ROUTES).length > 30)"]))
      .resolves.toBe('function true');
    // A call through the installed package, against a fetch that answers like the server.
    const script = "const { createGatehouse } = require('@gatehouse/sdk'); createGatehouse({ baseUrl: 'http://x.test', fetch: async () => new Response('{\"status\":\"ok\"}', { headers: { 'content-type': 'application/json' } }) }).system.health().then((r) => console.log(r.status));";
    await expect(node(['-e', script])).resolves.toBe('ok');
  });

  it('has types for a CommonJS and for an ES module consumer', async () => {
    writeFileSync(join(project, 'use.cts'), "import gatehouse = require('@gatehouse/sdk');\nconst gh: gatehouse.Gatehouse = gatehouse.createGatehouse({ baseUrl: 'https://auth.example.com' });\nexport const agents: Promise<gatehouse.Agent[]> = gh.agents.list().then((page) => page.data);\n");
    writeFileSync(join(project, 'use.mts'), "import { createGatehouse, isGatehouseError, type Agent } from '@gatehouse/sdk';\nconst gh = createGatehouse({ baseUrl: 'https://auth.example.com' });\nexport const first: Promise<Agent | undefined> = gh.agents.list().then((page) => page.data[0]);\nexport const check = (e: unknown) => isGatehouseError(e, 'not_found');\n");
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'es2022', lib: ['es2022', 'dom'], strict: true, noEmit: true, types: [] }, files: ['use.cts', 'use.mts'] }));
    try {
      await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
    } catch (error) {
      throw new Error(`tsc failed in the consumer project:\n${(error as { stdout?: string }).stdout}`);
    }
  }, 60_000);
});
