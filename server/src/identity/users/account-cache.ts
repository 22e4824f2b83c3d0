import type { Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import { LruCache } from '../../kernel/lru-cache.js';
import type { Eventually } from '../../kernel/eager.js';
import type { UserRow, UsersRepository } from './users.repository.js';

/**
 * Bounds how stale a cached account may be when no bus message arrives: a change made by the
 * CLI (another process) without Redis, or a message lost during a Redis outage. One primary-key
 * read per active account per 5 s is negligible next to the requests it serves.
 */
export const ACCOUNT_CACHE_TTL_MS = 5_000;

/**
 * The account behind a credential (tier, limits, role, disabled), needed on every
 * authenticated request. Read through an LRU; any change to an account is announced on the
 * bus, which drops the entry on every instance at once.
 */
export function createAccountCache(deps: { users: UsersRepository; bus: Bus; clock: Clock }) {
  const { users, bus, clock } = deps;
  // row undefined: no such account (deleted). Remembered like a row, so a credential that outlived
  // its account (a revoked session's token, counted in the usage history) reads the database once
  // per bound, not once per request. Ids are never reused, so an absence cannot hide a new account.
  const cache = new LruCache<string, { row: UserRow | undefined; at: number }>(100_000);
  bus.subscribe((m) => {
    if (m.type === 'account-changed') cache.delete(m.userId);
  });
  bus.onReconnect(() => cache.clear());

  return {
    /** The account (undefined: there is none): a fresh cached row at once, else after its read. */
    get(userId: string): Eventually<UserRow | undefined> {
      const hit = cache.get(userId);
      if (hit !== undefined && clock.now() - hit.at < ACCOUNT_CACHE_TTL_MS) return hit.row;
      return users.findById(userId).then((row) => {
        // Frozen: a row is shared by every request of the account (and the hot path caches
        // answers per row), so changing one in place would be a bug; this makes it throw.
        cache.set(userId, { row: row && Object.freeze(row), at: clock.now() });
        return row;
      });
    },
    /** Call after writing the account: every instance re-reads it on next use. */
    changed: (userId: string) => bus.publish({ type: 'account-changed', userId }),
  };
}
export type AccountCache = ReturnType<typeof createAccountCache>;
