// The peer under test: Better Auth (peers/better-auth/server.js) in its own process on a SQLite
// file in a temp dir; a signed-up user with its session cookie and an API key.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expectStatus } from './http.js';
import { freePort, startProcess, stopProcess, waitUntilServing } from './processes.js';

/** Neither package exports its package.json: find it above the entry point. */
function packageVersion(name) {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== name) {
    if (dirname(dir) === dir) return 'unknown';
    dir = dirname(dir);
  }
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

export function betterAuthVersions() {
  return { betterAuth: packageVersion('better-auth'), apiKeyPlugin: packageVersion('@better-auth/api-key') };
}

/** Starts the peer; `peer.resources` is filled in as things exist, for `stopBetterAuth`. */
export async function startBetterAuth(peer, repoRoot) {
  const dir = await mkdtemp(join(tmpdir(), 'better-auth-bench-'));
  peer.dir = dir;
  const port = await freePort();
  peer.base = `http://127.0.0.1:${port}`;
  peer.server = startProcess('better-auth', [join(repoRoot, 'bench', 'peers', 'better-auth', 'server.js')], {
    PORT: String(port),
    HOST: '127.0.0.1',
    SQLITE_FILE: join(dir, 'better-auth.db'),
    BETTER_AUTH_SECRET: randomBytes(32).toString('hex'),
    // Same as Gatehouse's servers here; Better Auth reads it only for defaults the server sets
    // explicitly (its IP rate limiter, the secure-cookie prefix), so this changes nothing measured.
    NODE_ENV: '',
  }, repoRoot);
  await waitUntilServing(peer.server, `${peer.base}/healthz`);
}

/**
 * Signs up (email + password; Better Auth signs the user in and sets the session cookie), creates
 * an API key with that session, and checks both targets answer 200 with the body expected.
 * get-session answers 200 `null` for an unknown session, so its body is checked under load too.
 */
export async function prepareBetterAuthUser(peer) {
  const suffix = randomBytes(6).toString('hex');
  const email = `bench-${suffix}@example.com`;
  // Better Auth checks the Origin of state-changing requests against its trusted origins (CSRF
  // protection); a browser sends it, so the setup does too.
  const headers = { origin: peer.base };
  const signUp = await expectStatus(peer.base, 'POST', '/api/auth/sign-up/email', 200, {
    headers, body: { email, password: `bench passphrase ${suffix} not on any list`, name: 'Bench' },
  });
  const cookie = signUp.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('better-auth.session_token='));
  if (!cookie) throw new Error(`setup: Better Auth sign-up set no session cookie: ${signUp.headers.getSetCookie()}`);
  const session = await expectStatus(peer.base, 'GET', '/api/auth/get-session', 200, { headers: { cookie } });
  if (session.json?.user?.email !== email) throw new Error(`setup: Better Auth get-session returned ${session.text}`);
  const created = await expectStatus(peer.base, 'POST', '/api/auth/api-key/create', 200, { headers: { ...headers, cookie }, body: { name: 'bench' } });
  const key = created.json.key;
  const verified = await expectStatus(peer.base, 'GET', '/bench/api-key', 200, { headers: { 'x-api-key': key } });
  if (verified.json.user_id !== signUp.json.user.id) throw new Error(`setup: Better Auth key route returned ${verified.text}`);
  const wrong = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
  await expectStatus(peer.base, 'GET', '/bench/api-key', 401, { headers: { 'x-api-key': wrong } });
  return { email, userId: signUp.json.user.id, cookie, key };
}

export async function stopBetterAuth(peer) {
  if (peer.server) await stopProcess(peer.server);
  if (peer.dir) await rm(peer.dir, { recursive: true, force: true });
  peer.dir = null;
}
