/**
 * The example as a release build sees it: Metro bundles it for Android and the bundle compiles to
 * Hermes bytecode (scripts/bundle-android.mjs, also `npm run bundle:example`); a module importing a
 * Node built-in fails the bundle, by its bare name and with the node: prefix.
 */
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const APP = join(__dirname, '..');
const out = mkdtempSync(join(tmpdir(), 'expo-chat-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function bundle(args) {
  try {
    return { ok: true, output: execFileSync(process.execPath, ['scripts/bundle-android.mjs', ...args], { cwd: APP, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    return { ok: false, output: `${error.stdout}\n${error.stderr}` };
  }
}

it('bundles the app for Android with Metro and compiles it to Hermes bytecode', () => {
  const result = bundle(['--out', join(out, 'app')]);
  if (!result.ok) throw new Error(result.output);
  const js = readFileSync(join(out, 'app/index.android.bundle'), 'utf8');
  // The packages are in it (their messages survive minification), built for React Native.
  expect(js).toContain('Gatehouse hooks must be used inside <GatehouseProvider>');
  expect(js).toContain('secureStoreTokenStore needs expo-secure-store');
  // The native sign-in sheets' JavaScript is in it too, compiled for Hermes like the rest.
  expect(js).toContain("getEnforcing('RNGoogleSignin')");
  expect(js).toContain('ExpoAppleAuthentication');
  const hbc = readFileSync(join(out, 'app/index.android.hbc'));
  expect(hbc.readBigUInt64LE(0)).toBe(0x1f1903c103bc1fc6n);
  expect(result.output).toMatch(/hermes bytecode: .*index\.android\.hbc/);
});

it.each(['imports-fs.js', 'imports-node-crypto.js'])('refuses to bundle a module that imports a Node built-in (%s)', (fixture) => {
  const result = bundle(['--no-build', '--entry-file', `test/fixtures/${fixture}`, '--out', join(out, fixture)]);
  expect(result.ok).toBe(false);
  expect(result.output).toMatch(new RegExp(`${fixture.replace('.', '\\.')} imports the Node built-in "(fs|node:crypto)", which React Native does not have`));
});
