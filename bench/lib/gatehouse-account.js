// The benchmark's accounts on a running Gatehouse: the main one (access token, API key, agents,
// huge limits), extra accounts that only log in, and reading back a stored password hash.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatehouseCli } from './gatehouse.js';
import { call, expectStatus } from './http.js';
import { psql, serverRequire } from './services.js';

/** The CLI caps limits at the 32-bit column maximum (2,147,483,647), so per day uses that. */
export const LIMITS = { perMinute: 1_000_000_000, perDay: 2_147_483_647 };
/** The page the agents targets ask for: `GET /v1/agents?limit=20` (20 is also the default). */
export const AGENTS_PAGE = 20;

function newCredentials(prefix) {
  const suffix = randomBytes(6).toString('hex');
  return { email: `${prefix}-${suffix}@example.com`, password: `bench passphrase ${suffix} not on any list` };
}

async function register(deployment, { email, password }) {
  const user = await expectStatus(deployment.base, 'POST', '/v1/auth/register', 201, { body: { email, password, name: 'Bench' } });
  deployment.resources.push({ kind: 'redis-keys', pattern: `gatehouse:rl:${user.json.id}:*` });
  return user.json.id;
}

/** Accounts that only log in (the login part): several, so no per-account state is shared. */
export async function registerLoginUsers(deployment, n) {
  const users = [];
  for (let i = 0; i < n; i++) {
    const credentials = newCredentials('login');
    users.push({ ...credentials, id: await register(deployment, credentials) });
  }
  return users;
}

/**
 * The main account: register, log in, make an API key, create `agents` agents, raise the account
 * (its personal organization) to enterprise with huge limits, and check that every target answers
 * 200 with the body expected before any load is sent.
 */
export async function prepareAccount(deployment, { agents = AGENTS_PAGE } = {}) {
  const { base } = deployment;
  const { email, password } = newCredentials('bench');
  const userId = await register(deployment, { email, password });
  const login = await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: email, password } });
  const token = login.json.access_token;
  // What the account's resources and budget belong to since organizations (issue 21): its personal
  // organization. Null on a server from before them, whose rows and budget are the user's own.
  const orgId = (await expectStatus(base, 'GET', '/v1/users/me', 200, { token })).json.personal_organization_id ?? null;
  if (orgId) deployment.resources.push({ kind: 'redis-keys', pattern: `gatehouse:rl:${orgId}:*` });
  const key = (await expectStatus(base, 'POST', '/v1/api-keys', 201, { token, body: { name: 'bench' } })).json.key;
  for (let i = 0; i < agents; i++) {
    await expectStatus(base, 'POST', '/v1/agents', 201, { token, body: { name: `Bench agent ${i + 1}`, model: 'gpt-4o', description: 'An agent of the benchmark account.' } });
  }

  await gatehouseCli(deployment, ['users', 'set-tier', email, 'enterprise', '--per-minute', String(LIMITS.perMinute), '--per-day', String(LIMITS.perDay)]);
  // Without Redis the running server learns of the change when its 5 s organization cache expires.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await expectStatus(base, 'GET', '/v1/users/me', 200, { token });
    if (res.json.tier === 'enterprise' && res.json.limits.per_minute === LIMITS.perMinute) break;
    if (Date.now() > deadline) throw new Error(`setup: the server still reports ${JSON.stringify(res.json.limits)} after set-tier`);
    await sleep(500);
  }
  const me = await expectStatus(base, 'GET', '/v1/users/me', 200, { token });
  if (me.json.email !== email) throw new Error(`setup: /v1/users/me returned ${me.text}`);
  for (const credential of [token, key]) {
    const usage = await expectStatus(base, 'GET', '/v1/usage', 200, { token: credential });
    if (usage.json.tier !== 'enterprise') throw new Error(`setup: /v1/usage returned ${usage.text}`);
    const page = await expectStatus(base, 'GET', `/v1/agents?limit=${AGENTS_PAGE}`, 200, { token: credential });
    const expected = Math.min(agents, AGENTS_PAGE);
    if (page.json.data?.length !== expected) throw new Error(`setup: /v1/agents returned ${page.json.data?.length} agents, expected ${expected}`);
  }
  // By design /v1/users/me refuses API keys (403 session_required): account management needs a login.
  const refused = await call(base, 'GET', '/v1/users/me', { token: key });
  if (refused.status !== 403) throw new Error(`setup: /v1/users/me with an API key answered ${refused.status}, expected 403`);
  return { email, password, userId, orgId, token, key };
}

/**
 * The argon2 hash the server stored for `userId`. It carries the parameters the server hashes
 * with (`$argon2id$v=19$m=…,t=…,p=…$…`), so verifying it here costs exactly what a login's verify does.
 */
export async function storedPasswordHash(deployment, userId) {
  if (!/^usr_[0-9a-z]{26}$/.test(userId)) throw new Error(`not a user id: ${userId}`);
  if (deployment.mode === 'embedded') {
    const Database = serverRequire(deployment.root)('better-sqlite3');
    const db = new Database(deployment.sqliteFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare('select password_hash from users where id = ?').get(userId).password_hash;
    } finally {
      db.close();
    }
  }
  return psql(deployment.database, `select password_hash from users where id = '${userId}'`);
}
