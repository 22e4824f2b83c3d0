// Packing and installing the published packages the way a user gets them: `npm pack`, then
// `npm install <tarball>` in a fresh project outside this repository. Used by the package tests of
// sdk/ and react-native/.
// CommonJS, so both the SDK's Vitest suite and the React Native package's Jest suite load it.
// Every child runs asynchronously: the React Native suite runs its files in one process that
// holds pooled connections to the shared test server, and an event loop blocked for seconds by a
// synchronous child cannot see the server close one of them, then sends its next request into a
// closed socket ("fetch failed").
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..');

/** A child environment with nothing of this repository's npm run or workspace setup in it. */
function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && name !== 'INIT_CWD' && name !== 'NODE_OPTIONS'));
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** A command's standard output, trimmed; a failure carries its stdout and stderr. */
async function run(command, args, options) {
  const { stdout } = await promisify(execFile)(command, args, { env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return stdout.trim();
}

/** `npm pack` of a workspace folder (its prepack builds it); resolves to the tarball's path and its files. */
async function pack(workspaceDir, destination) {
  const out = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: workspaceDir });
  const [info] = JSON.parse(out);
  return { tarball: join(destination, info.filename), files: info.files.map((f) => f.path) };
}

/** A fresh project in the system temp folder with the tarballs installed (offline: they need nothing else). */
async function installIntoFreshProject(tarballs, extraNpmArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-consumer-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  await run('npm', ['install', '--offline', '--no-package-lock', ...extraNpmArgs, ...tarballs], { cwd: dir });
  return dir;
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

module.exports = { REPO_ROOT, cleanEnv, run, pack, installIntoFreshProject, readJson };
