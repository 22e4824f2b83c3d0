// The shared PostgreSQL and Redis: where they are, their versions, Redis's own CPU use, and
// removing what a run put there.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run } from './processes.js';

export const PG_ADMIN = { host: '127.0.0.1', port: '5432', user: 'postgres' };
export const PG_ARGS = ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user];
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Loads a package from the measured server's dependency tree, so its exact versions. */
export function serverRequire(root) {
  return createRequire(join(root, 'server', 'package.json'));
}

export const pgUrl = (database) => `postgres://${PG_ADMIN.user}@${PG_ADMIN.host}:${PG_ADMIN.port}/${database}`;

/** One SQL statement through psql; its output, unaligned, without headers. */
export function psql(database, statement) {
  return run('psql', [...PG_ARGS, '-d', database, '-v', 'ON_ERROR_STOP=1', '-tAc', statement]);
}

function redisClient(root) {
  const { Redis } = serverRequire(root)('ioredis');
  return new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
}

export async function deleteRedisKeys(root, pattern) {
  const redis = redisClient(root);
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

export async function serviceVersions(root) {
  const versions = {};
  try {
    versions.postgresql = await psql('postgres', 'show server_version');
  } catch {
    versions.postgresql = 'unavailable';
  }
  try {
    const redis = redisClient(root);
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
  const redis = redisClient(root);
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
