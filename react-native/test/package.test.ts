/**
 * @jest-environment node
 *
 * What a user installs: both packages packed, installed together into a fresh project outside
 * this repository. The SDK loads there with require() and import(); this package's declarations
 * compile with tsc against React Native's own types (an Expo-style .tsx screen, and a CommonJS
 * file), with react and react-native taken from this repository as an app would have them.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
// Its children run asynchronously (see there): this suite shares its process with the suites that
// hold connections to the live server.
const { REPO_ROOT, run, installIntoFreshProject, pack } = require('../../scripts/packages.cjs') as {
  REPO_ROOT: string;
  run(command: string, args: string[], options: { cwd: string }): Promise<string>;
  installIntoFreshProject(tarballs: string[], extraNpmArgs?: string[]): Promise<string>;
  pack(dir: string, destination: string): Promise<{ tarball: string; files: string[] }>;
};

const TSC = require.resolve('typescript/bin/tsc');
let packDir: string;
let project: string;
let files: string[];

beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
  const sdk = await pack(resolve(REPO_ROOT, 'sdk'), packDir);
  const native = await pack(resolve(REPO_ROOT, 'react-native'), packDir);
  files = native.files;
  // Peers (react, react-native, expo-secure-store) are the app's: not installed from the registry here.
  project = await installIntoFreshProject([sdk.tarball, native.tarball], ['--legacy-peer-deps']);
  for (const peer of ['react', 'react-native', '@types/react', 'expo-secure-store', '@react-native']) {
    const target = join(project, 'node_modules', peer);
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', peer), target);
  }
}, 180_000);
afterAll(() => {
  rmSync(packDir, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

const node = (args: string[]) => run(process.execPath, args, { cwd: project });

it('carries its builds, license and readme; the SDK comes along as its dependency', async () => {
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts']));
  expect(files.filter((f) => /^(src|test)\//.test(f))).toEqual([]);
  await expect(node(['-p', "require('@gatehouse/react-native/package.json').dependencies['@gatehouse/sdk']"])).resolves.toBe('0.1.0');
});

it('the SDK loads with require() and with import() there', async () => {
  await expect(node(['-p', "typeof require('@gatehouse/sdk').createGatehouse"])).resolves.toBe('function');
  await expect(node(['--input-type=module', '-e', "console.log(typeof (await import('@gatehouse/sdk')).createGatehouse)"])).resolves.toBe('function');
});

it("compiles an app's use of the package with tsc against React Native's types", async () => {
  writeFileSync(join(project, 'App.tsx'), `import { Text, View } from 'react-native';
import { GatehouseProvider, secureStoreTokenStore, useAgents, useMessages, useSession, type Agent } from '@gatehouse/react-native';

function Home() {
  const { status, user, signIn, signOut, handleAuthLink } = useSession();
  const agents = useAgents({ pageSize: 10 });
  const first: Agent | undefined = agents.items[0];
  const messages = useMessages('cht_x');
  void signIn; void signOut; void handleAuthLink; void messages.send;
  return <View><Text>{status} {user?.name} {first?.name} {agents.hasMore ? 'more' : ''}</Text></View>;
}

export default function App() {
  return <GatehouseProvider baseUrl="https://auth.example.com" tokenStore={secureStoreTokenStore()}><Home /></GatehouseProvider>;
}
`);
  writeFileSync(join(project, 'use.cts'), "import rn = require('@gatehouse/react-native');\nexport const link: rn.AuthLink | null = rn.parseAuthLink('myapp://auth/verify-email?token=abc');\n");
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, jsx: 'react-jsx', target: 'es2022', lib: ['es2022'], module: 'preserve', moduleResolution: 'bundler', types: ['react-native'], skipLibCheck: false },
    files: ['App.tsx'],
  }));
  writeFileSync(join(project, 'tsconfig.cjs.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022'], module: 'node16', moduleResolution: 'node16', types: ['react-native'], skipLibCheck: true },
    files: ['use.cts'],
  }));
  for (const config of ['tsconfig.json', 'tsconfig.cjs.json']) {
    try {
      await run(process.execPath, [TSC, '-p', config], { cwd: project });
    } catch (error) {
      throw new Error(`tsc -p ${config} failed in the consumer project:\n${(error as { stdout?: string }).stdout}`);
    }
  }
}, 120_000);
