import type { Redis } from 'ioredis';

/**
 * How many live streams an organization holds open, across instances, so the tier's cap
 * (kernel/access-terms/tiers.ts TIER_STREAMS) holds for the organization as a whole. A slot is
 * taken before a stream starts and given back when it ends.
 */
export interface StreamSlots {
  /** Takes a slot under `cap`; false when the organization holds `cap` already. */
  take(orgId: string, streamId: string, cap: number): Promise<boolean>;
  release(orgId: string, streamId: string): void;
  close(): void;
}

export function createMemoryStreamSlots(): StreamSlots {
  const open = new Map<string, Set<string>>();
  return {
    async take(orgId, streamId, cap) {
      const streams = open.get(orgId) ?? new Set<string>();
      if (streams.size >= cap) return false;
      streams.add(streamId);
      open.set(orgId, streams);
      return true;
    },
    release(orgId, streamId) {
      const streams = open.get(orgId);
      streams?.delete(streamId);
      if (streams?.size === 0) open.delete(orgId);
    },
    close() {},
  };
}

/**
 * On Redis a slot is a member of the organization's sorted set, scored by when its lease ends: an
 * instance that dies cannot give its slots back, so each instance renews the leases of its open
 * streams every LEASE_MS / 3 and a slot whose lease ran out counts no more. The check and the
 * take are one script, so concurrent opens on any number of instances cannot pass the cap.
 */
const LEASE_MS = 60_000;
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

type SlotCommands = Redis & { gatehouseStreamSlotTake(key: string, now: number, until: number, cap: number, id: string, ttl: number): Promise<number> };

export function createRedisStreamSlots(deps: { redis: Redis; prefix: string; now: () => number; onError: (error: unknown) => void }): StreamSlots {
  const redis = deps.redis as SlotCommands;
  redis.defineCommand('gatehouseStreamSlotTake', { numberOfKeys: 1, lua: TAKE });
  const key = (orgId: string) => `${deps.prefix}streams:${orgId}`;
  // What this instance holds, to renew.
  const held = new Map<string, { orgId: string }>();
  // Redis unreachable: the cap holds per instance until it is back (as the request limiters do).
  const fallback = createMemoryStreamSlots();
  const onFallback = new Set<string>();
  const renew = setInterval(() => {
    if (held.size === 0) return;
    const until = deps.now() + LEASE_MS;
    const pipeline = redis.pipeline();
    for (const [streamId, { orgId }] of held) {
      // Not XX: a slot whose lease lapsed (Redis restarted, a long stall) counts again.
      pipeline.zadd(key(orgId), until, streamId);
      pipeline.pexpire(key(orgId), LEASE_MS);
    }
    pipeline.exec().catch(deps.onError);
  }, LEASE_MS / 3);
  renew.unref();
  return {
    async take(orgId, streamId, cap) {
      const now = deps.now();
      let taken: boolean;
      try {
        taken = (await redis.gatehouseStreamSlotTake(key(orgId), now, now + LEASE_MS, cap, streamId, LEASE_MS)) === 1;
      } catch (error) {
        deps.onError(error);
        taken = await fallback.take(orgId, streamId, cap);
        if (taken) onFallback.add(streamId);
        return taken;
      }
      if (taken) held.set(streamId, { orgId });
      return taken;
    },
    release(orgId, streamId) {
      if (onFallback.delete(streamId)) return fallback.release(orgId, streamId);
      held.delete(streamId);
      redis.zrem(key(orgId), streamId).catch(deps.onError);
    },
    close() {
      clearInterval(renew);
    },
  };
}
