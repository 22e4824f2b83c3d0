// `npm run bundle:example`: what a release build of the example does with its JavaScript, without
// an Android SDK. Builds the two packages, bundles the app for Android with Metro (Expo's
// `export:embed`, the command a Gradle release build runs; metro.config.js refuses Node
// built-ins), then compiles the bundle to Hermes bytecode with the hermesc that React Native ships
// and checks the bytecode file. Offline: EXPO_OFFLINE=1, nothing is fetched.
//   node scripts/bundle-android.mjs [--entry-file FILE] [--out DIR] [--no-build]  (--no-build: the packages' dist/ is current)
// FILE and DIR are relative to the app's folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const appDir = resolve(import.meta.dirname, '..');
const repoRoot = resolve(appDir, '../..');
const { values } = parseArgs({ options: { 'entry-file': { type: 'string', default: 'index.js' }, out: { type: 'string', default: join(appDir, 'dist') }, 'no-build': { type: 'boolean', default: false } } });
const out = resolve(appDir, values.out);
const require = createRequire(join(appDir, 'package.json'));
const env = { ...process.env, EXPO_OFFLINE: '1', EXPO_NO_TELEMETRY: '1', CI: '1', NODE_ENV: 'production' };
const run = (command, args, cwd) => execFileSync(command, args, { cwd, env, stdio: 'inherit' });

if (!values['no-build']) for (const pkg of ['sdk', 'react-native']) run('npm', ['run', 'build', '--silent'], join(repoRoot, pkg));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const bundle = join(out, 'index.android.bundle');
const expoCli = require.resolve('expo/bin/cli');
run(process.execPath, [expoCli, 'export:embed', '--platform', 'android', '--dev', 'false', '--minify', 'true', '--reset-cache',
  '--entry-file', resolve(appDir, values['entry-file']), '--bundle-output', bundle, '--assets-dest', join(out, 'assets')], appDir);

// React Native ships hermesc for these three; there is none for Linux on arm64.
const HERMESC = { darwin: 'osx-bin/hermesc', win32: 'win64-bin/hermesc.exe', linux: 'linux64-bin/hermesc' };
if (!HERMESC[process.platform] || (process.platform === 'linux' && process.arch !== 'x64')) throw new Error(`React Native ships no hermesc for ${process.platform}-${process.arch}`);
const hermesc = join(dirname(require.resolve('react-native/package.json')), 'sdks/hermesc', HERMESC[process.platform]);
const bytecode = join(out, 'index.android.hbc');
run(hermesc, ['-emit-binary', '-O', '-w', '-out', bytecode, bundle], appDir);

// A Hermes bytecode file opens with this magic number (little-endian 0x1F1903C103BC1FC6).
const HERMES_MAGIC = Buffer.from([0xc6, 0x1f, 0xbc, 0x03, 0xc1, 0x03, 0x19, 0x1f]);
if (!readFileSync(bytecode).subarray(0, 8).equals(HERMES_MAGIC)) throw new Error(`${bytecode} is not Hermes bytecode`);
const kib = (file) => `${(statSync(file).size / 1024).toFixed(0)} KiB`;
console.log(`bundle: ${bundle} (${kib(bundle)})\nhermes bytecode: ${bytecode} (${kib(bytecode)})`);
