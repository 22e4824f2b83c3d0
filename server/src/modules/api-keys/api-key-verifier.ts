import type { AuthContext } from '../../http/auth-context.js';
import type { ApiKeyVerifier } from '../../http/authenticate.js';
import { AppError } from '../../http/error-catalogue.js';
import type { Bus } from '../../infra/bus.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import { LruCache } from '../../infra/lru-cache.js';
import { sha256Hex } from '../tokens/opaque-tokens.js';
import { isWellFormedApiKey } from './api-key-format.js';
import type { ApiKeysRepository } from './api-keys.repository.js';

interface CachedKey {
  id: string;
  userId: string;
  scopes: ReadonlySet<string>;
  expiresAt: number | null;
  cachedAt: number;
}

/** A safety net only: revocations arrive by the bus at once; this bounds a missed message. */
const CACHE_TTL_MS = 5 * 60_000;
const NEGATIVE_TTL_MS = 60_000;
const LAST_USED_FLUSH_MS = 30_000;

/**
 * Resolves `gth_…` keys on the hot path: shape and checksum first (no I/O for junk), then
 * an LRU of known hashes, then one indexed lookup. Unknown hashes are remembered briefly so a
 * flood of well-formed fakes cannot hammer the database. `last_used_at` is collected in memory
 * and written in one batch every 30 s (API.md allows 60 s of lag).
 */
export function createApiKeyVerifier(deps: { repo: ApiKeysRepository; bus: Bus; clock: Clock; onError: (e: unknown) => void }) {
  const { repo, bus, clock } = deps;
  const known = new LruCache<string, CachedKey>(50_000);
  const unknown = new LruCache<string, number>(50_000);
  const lastUsed = new Map<string, string>();

  bus.subscribe((message) => {
    if (message.type !== 'api-keys-revoked') return;
    for (const hash of message.hashes) {
      known.delete(hash);
      unknown.set(hash, clock.now() + CACHE_TTL_MS);
    }
  });
  bus.onReconnect(() => {
    // Revocations published while we were cut off are lost: start from the database again.
    known.clear();
  });

  async function flush(): Promise<void> {
    if (lastUsed.size === 0) return;
    const batch = new Map(lastUsed);
    lastUsed.clear();
    await repo.touch(batch).catch(deps.onError);
  }
  const timer = setInterval(() => void flush(), LAST_USED_FLUSH_MS);
  timer.unref();

  const invalid = () => new AppError('invalid_token', 'The API key is not valid.');

  const verifier: ApiKeyVerifier & { flush(): Promise<void>; close(): Promise<void> } = {
    async verify(secret): Promise<AuthContext> {
      if (!isWellFormedApiKey(secret)) throw invalid();
      const now = clock.now();
      const hash = sha256Hex(secret);
      let entry = known.get(hash);
      if (entry && now - entry.cachedAt > CACHE_TTL_MS) {
        known.delete(hash);
        entry = undefined;
      }
      if (!entry) {
        const blockedUntil = unknown.get(hash);
        if (blockedUntil !== undefined && blockedUntil > now) throw invalid();
        const row = await repo.findByHash(hash);
        if (!row || row.revoked_at !== null) {
          unknown.set(hash, now + NEGATIVE_TTL_MS);
          throw invalid();
        }
        entry = { id: row.id, userId: row.user_id, scopes: new Set(row.scopes.split(' ').filter(Boolean)), expiresAt: row.expires_at ? Date.parse(row.expires_at) : null, cachedAt: now };
        known.set(hash, entry);
      }
      if (entry.expiresAt !== null && entry.expiresAt <= now) throw new AppError('token_expired', 'The API key has expired.');
      lastUsed.set(entry.id, isoTime(now));
      return { userId: entry.userId, sessionId: null, credential: 'api_key', scopes: entry.scopes, apiKeyId: entry.id };
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
  return verifier;
}
export type ApiKeyVerifierService = ReturnType<typeof createApiKeyVerifier>;
