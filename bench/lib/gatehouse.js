// One Gatehouse deployment under test (embedded, or PostgreSQL + Redis): its storage, its server
// process, and the way to remove it all.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, run, startProcess, stopProcess, waitUntilServing } from './processes.js';
import { deleteRedisKeys, PG_ARGS, pgUrl, REDIS_URL } from './services.js';

/**
 * A deployment to fill in: `mode` is 'embedded' or 'redis'; `root` holds its server/; `name`
 * tells its process apart in error messages.
 */
export function newDeployment(mode, root, name = mode) {
  return { mode, root, name, resources: [], server: null, base: null, env: null, nodeArgs: [], reference: null };
}

/** The module preloaded (`node --import`) into a server started with `reference: true`. */
const REFERENCE_MODULE = pathToFileURL(fileURLToPath(new URL('./in-process-reference.js', import.meta.url))).href;

/**
 * Starts one deployment: 'embedded' (SQLite file in a temp dir, memory limiter) or 'redis' (a
 * fresh PostgreSQL database and REDIS_URL). Every resource is recorded on `deployment` as soon
 * as it exists, so `teardown` removes it even after a failed start. The server runs its
 * migrations as it starts. `nodeArgs`: more Node flags for the server process; `env`: more
 * configuration (the routes part lifts the caps). `reference`: also serve the in-process
 * reference (lib/in-process-reference.js) from the same process, on `deployment.reference.base`.
 */
/** The bench reads the server's own numbers from /metrics, on the public port with this token. */
export const METRICS_TOKEN = 'bench-metrics-token-0123456789abcdef';

export async function startGatehouse(deployment, { profileDir, nodeArgs = [], env: extraEnv = {}, reference = false } = {}) {
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // The highest the server accepts: the login part is a throughput test of POST /v1/auth/login
    // from one address, and nothing else measured is a public route.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    // The same for the abuse limit of the account routes (GET /v1/users/me and /v1/usage spend no
    // budget but have their own per-account limit): the bench measures the pipeline, not the limit.
    ACCOUNT_RATE_LIMIT_PER_MINUTE: '1000000',
    METRICS_TOKEN,
    // Long enough that no token expires however long a run takes.
    ACCESS_TOKEN_TTL: '86400',
    NODE_ENV: '', // production would demand GATEHOUSE_SECRET; nothing else reads it
    ...extraEnv,
  };
  if (deployment.mode === 'embedded') {
    const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-'));
    deployment.resources.push({ kind: 'dir', dir });
    deployment.sqliteFile = join(dir, 'gatehouse.db');
    env.DATABASE_URL = `sqlite:${deployment.sqliteFile}`;
    env.REDIS_URL = '';
  } else {
    const database = `gatehouse_bench_${randomBytes(6).toString('hex')}`;
    await run('createdb', [...PG_ARGS, database]);
    deployment.resources.push({ kind: 'database', database });
    deployment.database = database;
    env.DATABASE_URL = pgUrl(database);
    env.REDIS_URL = REDIS_URL;
  }
  deployment.env = env;
  deployment.nodeArgs = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(reference ? ['--import', REFERENCE_MODULE] : []), ...nodeArgs];
  deployment.base = `http://127.0.0.1:${port}`;
  if (reference) await withReference(deployment);
  await startServer(deployment);
}

/** A port for the in-process reference, in the environment the preloaded module reads. */
async function withReference(deployment) {
  const port = await freePort();
  deployment.env = { ...deployment.env, BENCH_REFERENCE_PORT: String(port) };
  deployment.reference = { base: `http://127.0.0.1:${port}` };
}

const built = new Set();
/**
 * Compiles `root`'s server once per bench run (its bin runs dist/); a checkout from before the
 * build step has no build script and runs its TypeScript through tsx.
 */
function ensureBuilt(root) {
  const script = join(root, 'server', 'scripts', 'build.mjs');
  if (built.has(root) || !existsSync(script)) return;
  const result = spawnSync(process.execPath, [script], { cwd: join(root, 'server'), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the server in ${root} failed:\n${result.stderr}`);
  built.add(root);
}

async function startServer(deployment) {
  ensureBuilt(deployment.root);
  deployment.server = startProcess(`gatehouse (${deployment.name})`, [...deployment.nodeArgs, 'server/bin/gatehouse.js', 'serve'], deployment.env, deployment.root);
  await waitUntilServing(deployment.server, `${deployment.base}/healthz`);
  if (deployment.reference) await waitUntilServing(deployment.server, `${deployment.reference.base}/healthz`);
}

/**
 * Another server process on a started deployment's storage (the same database and Redis), from
 * `root`/server: a second version of the code measured against the same data, or (`env`) the same
 * code configured otherwise (LOG_LEVEL; `nodeArgs` instead of the deployment's). It has an in-process reference of its own when the
 * deployment has one. Stopped by `teardown` of the deployment it returns, which owns nothing else.
 */
export async function startAnotherServer(deployment, root, name, { env = {}, nodeArgs = deployment.nodeArgs } = {}) {
  const port = await freePort();
  const other = { ...newDeployment(deployment.mode, root, name), env: { ...deployment.env, PORT: String(port), ...env }, nodeArgs, base: `http://127.0.0.1:${port}` };
  if (deployment.reference) await withReference(other);
  await startServer(other);
  return other;
}

/** Stops the server, runs `whileStopped` (a bulk load of its database), starts it again. */
export async function withServerStopped(deployment, whileStopped) {
  await stopProcess(deployment.server);
  await whileStopped();
  await startServer(deployment);
}

/** The CLI on the deployment's database: `gatehouse <args>`. */
export function gatehouseCli(deployment, args) {
  ensureBuilt(deployment.root);
  return run(process.execPath, ['server/bin/gatehouse.js', ...args], deployment.env, deployment.root);
}

/** Stops the server, then removes what it used: the temp dir, the database, its Redis keys. */
export async function teardown(deployment) {
  const problems = [];
  if (deployment.server) await stopProcess(deployment.server);
  for (const resource of deployment.resources.reverse()) {
    try {
      if (resource.kind === 'dir') await rm(resource.dir, { recursive: true, force: true });
      if (resource.kind === 'database') await run('dropdb', [...PG_ARGS, '--if-exists', '--force', resource.database]);
      if (resource.kind === 'redis-keys' && deployment.mode === 'redis') await deleteRedisKeys(deployment.root, resource.pattern);
    } catch (error) {
      problems.push(`${resource.kind}: ${error.message}`);
    }
  }
  deployment.resources = [];
  return problems;
}
