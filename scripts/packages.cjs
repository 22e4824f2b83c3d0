// Packing and installing the published packages the way a user gets them: `npm pack`, then
// `npm install <tarball>` in a fresh project outside this repository. Used by the package tests of
// sdk/ and react-native/.
// CommonJS, so both the SDK's Vitest suite and the React Native package's Jest suite load it.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..');

/** A child environment with nothing of this repository's npm run or workspace setup in it. */
function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && name !== 'INIT_CWD' && name !== 'NODE_OPTIONS'));
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** `npm pack` of a workspace folder (its prepack builds it); returns the tarball's path. */
function pack(workspaceDir, destination) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: workspaceDir, env: cleanEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out);
  return { tarball: join(destination, info.filename), files: info.files.map((f) => f.path) };
}

/** A fresh project in the system temp folder with the tarballs installed (offline: they need nothing else). */
function installIntoFreshProject(tarballs, extraNpmArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-consumer-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  execFileSync('npm', ['install', '--offline', '--no-package-lock', ...extraNpmArgs, ...tarballs], { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  return dir;
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

module.exports = { REPO_ROOT, cleanEnv, pack, installIntoFreshProject, readJson };
