import { Redis } from 'ioredis';

/**
 * Connections for the hot path fail fast instead of queueing: a request never waits on a dead
 * Redis; the caller falls back (see the rate limiter) and the client reconnects in the
 * background. Resolves once connected, or after connectTimeout with the client still retrying,
 * so a Redis that is down at start does not stop the service (readyz reports it).
 */
export async function connectRedis(url: string, role: 'commands' | 'subscriber', onError: (e: unknown) => void = () => {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: role === 'subscriber', // subscribe() must survive a reconnect
    maxRetriesPerRequest: role === 'subscriber' ? null : 0,
    ...(role === 'commands' ? { commandTimeout: 500, enableAutoPipelining: true } : {}),
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    connectionName: `gatehouse-${role}`,
  });
  redis.on('error', onError);
  await redis.connect().catch(onError);
  return redis;
}
