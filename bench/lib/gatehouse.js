// One Gatehouse deployment under test (embedded, or PostgreSQL + Redis): its storage, its server
// process, a benchmark account with an access token and an API key, and the way to remove it all.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, run, startProcess, stopProcess, waitUntilServing } from './processes.js';

export const PG_ADMIN = { host: '127.0.0.1', port: '5432', user: 'postgres' };
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The CLI caps limits at the 32-bit column maximum (2,147,483,647), so per day uses that. */
export const LIMITS = { perMinute: 1_000_000_000, perDay: 2_147_483_647 };

const pgArgs = ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user];

export function serverRequire(root) {
  return createRequire(join(root, 'server', 'package.json'));
}

async function call(base, method, path, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON; kept as text in the error below
  }
  return { status: res.status, headers: res.headers, json, text };
}

async function expectStatus(base, method, path, status, options) {
  const res = await call(base, method, path, options);
  if (res.status !== status) throw new Error(`setup: ${method} ${path} answered ${res.status}, expected ${status}: ${res.text.slice(0, 500)}`);
  return res;
}

/** A deployment to fill in: `mode` is 'embedded' or 'redis'; `root` holds its server/. */
export function newDeployment(mode, root) {
  return { mode, root, resources: [], server: null, base: null, env: null };
}

/**
 * Starts one deployment: 'embedded' (SQLite file in a temp dir, memory limiter) or 'redis' (a
 * fresh PostgreSQL database and REDIS_URL). Every resource is recorded on `deployment` as soon
 * as it exists, so `teardown` removes it even after a failed start.
 */
export async function startGatehouse(deployment, { root, profileDir }) {
  const { mode } = deployment;
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000',
    // Long enough that no token expires however long a run takes.
    ACCESS_TOKEN_TTL: '7200',
    NODE_ENV: '', // production would demand GATEHOUSE_SECRET; nothing else reads it
  };
  if (mode === 'embedded') {
    const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-'));
    deployment.resources.push({ kind: 'dir', dir });
    env.DATABASE_URL = `sqlite:${join(dir, 'gatehouse.db')}`;
    env.REDIS_URL = '';
  } else {
    const database = `gatehouse_bench_${randomBytes(6).toString('hex')}`;
    await run('createdb', [...pgArgs, database]);
    deployment.resources.push({ kind: 'database', database });
    env.DATABASE_URL = `postgres://${PG_ADMIN.user}@${PG_ADMIN.host}:${PG_ADMIN.port}/${database}`;
    env.REDIS_URL = REDIS_URL;
  }
  deployment.env = env;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  deployment.server = startProcess(`gatehouse (${mode})`, [...nodeArgs, 'server/bin/gatehouse.js', 'serve'], env, root);
  deployment.base = `http://127.0.0.1:${port}`;
  await waitUntilServing(deployment.server, `${deployment.base}/healthz`);
}

/** Register, log in, make an API key, raise the account to enterprise with huge limits. */
export async function prepareAccount(deployment, root) {
  const { base } = deployment;
  const suffix = randomBytes(6).toString('hex');
  const email = `bench-${suffix}@example.com`;
  const password = `bench passphrase ${suffix} not on any list`;
  const user = await expectStatus(base, 'POST', '/v1/auth/register', 201, { body: { email, password, name: 'Bench' } });
  deployment.resources.push({ kind: 'redis-keys', pattern: `gatehouse:rl:${user.json.id}:*` });
  const login = await expectStatus(base, 'POST', '/v1/auth/login', 200, { body: { username: email, password } });
  const token = login.json.access_token;
  const key = (await expectStatus(base, 'POST', '/v1/api-keys', 201, { token, body: { name: 'bench' } })).json.key;

  await run(process.execPath, ['server/bin/gatehouse.js', 'users', 'set-tier', email, 'enterprise',
    '--per-minute', String(LIMITS.perMinute), '--per-day', String(LIMITS.perDay)], deployment.env, root);
  // Without Redis the running server learns of the change when its 5 s account cache expires.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await expectStatus(base, 'GET', '/v1/users/me', 200, { token });
    if (res.json.tier === 'enterprise' && res.json.limits.per_minute === LIMITS.perMinute) break;
    if (Date.now() > deadline) throw new Error(`setup: the server still reports ${JSON.stringify(res.json.limits)} after set-tier`);
    await sleep(500);
  }
  // Each target answers 200 with the body we expect before any load is sent.
  const me = await expectStatus(base, 'GET', '/v1/users/me', 200, { token });
  if (me.json.email !== email) throw new Error(`setup: /v1/users/me returned ${me.text}`);
  for (const credential of [token, key]) {
    const usage = await expectStatus(base, 'GET', '/v1/usage', 200, { token: credential });
    if (usage.json.tier !== 'enterprise') throw new Error(`setup: /v1/usage returned ${usage.text}`);
  }
  // By design /v1/users/me refuses API keys (403 session_required): account management needs a login.
  const refused = await call(base, 'GET', '/v1/users/me', { token: key });
  if (refused.status !== 403) throw new Error(`setup: /v1/users/me with an API key answered ${refused.status}, expected 403`);
  return { email, userId: user.json.id, token, key };
}

async function deleteRedisKeys(root, pattern) {
  const { Redis } = serverRequire(root)('ioredis');
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const scan = async () => {
    const keys = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  };
  try {
    await redis.connect();
    const keys = await scan();
    if (keys.length) await redis.del(...keys);
    const left = await scan();
    if (left.length) throw new Error(`still there: ${left.join(', ')}`);
  } finally {
    redis.disconnect();
  }
}

/** Stops the server, then removes what it used: the temp dir, the database, its Redis keys. */
export async function teardown(deployment, root) {
  const problems = [];
  if (deployment.server) await stopProcess(deployment.server);
  for (const resource of deployment.resources.reverse()) {
    try {
      if (resource.kind === 'dir') await rm(resource.dir, { recursive: true, force: true });
      if (resource.kind === 'database') await run('dropdb', [...pgArgs, '--if-exists', '--force', resource.database]);
      if (resource.kind === 'redis-keys' && deployment.mode === 'redis') await deleteRedisKeys(root, resource.pattern);
    } catch (error) {
      problems.push(`${resource.kind}: ${error.message}`);
    }
  }
  return problems;
}

export async function serviceVersions(root) {
  const versions = {};
  try {
    versions.postgresql = await run('psql', [...pgArgs, '-d', 'postgres', '-tAc', 'show server_version']);
  } catch {
    versions.postgresql = 'unavailable';
  }
  try {
    const { Redis } = serverRequire(root)('ioredis');
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const info = await redis.info('server');
    redis.disconnect();
    versions.redis = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } catch {
    versions.redis = 'unavailable';
  }
  return versions;
}

/** A connection for reading Redis's own CPU use (INFO cpu) around each load. */
export async function connectRedisProbe(root) {
  const { Redis } = serverRequire(root)('ioredis');
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  return {
    async cpuTimeUs() {
      const info = await redis.info('cpu');
      const field = (name) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
      return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
    },
    close: () => redis.disconnect(),
  };
}
