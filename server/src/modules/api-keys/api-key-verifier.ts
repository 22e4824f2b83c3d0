import type { ApiKeyVerifier, AuthContext } from '../../core/credentials.js';
import { AppError } from '../../core/errors.js';
import type { Bus } from '../../infra/bus.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import { LruCache } from '../../infra/lru-cache.js';
import { sha256Hex } from '../tokens/opaque-tokens.js';
import { isWellFormedApiKey } from './api-key-format.js';
import type { ApiKeysRepository } from './api-keys.repository.js';

interface CachedKey {
  id: string;
  expiresAt: number | null;
  cachedAt: number;
  /** Built once per cache fill: the hot path hands out the same frozen context every time. */
  auth: AuthContext;
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
  // The SHA-256 of keys seen recently, so a repeat caller is not hashed again. (The process holds
  // live credentials in memory anyway: verified access tokens are cached whole.) Only well-formed
  // keys enter; a revoked key's hash is gone from `known`, so this map alone admits nothing.
  const hashes = new LruCache<string, string>(50_000);
  const lastUsed = new Map<string, number>();

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
    const batch = new Map([...lastUsed].map(([id, at]) => [id, isoTime(at)]));
    lastUsed.clear();
    await repo.touch(batch).catch(deps.onError);
  }
  const timer = setInterval(() => void flush(), LAST_USED_FLUSH_MS);
  timer.unref();

  const invalid = () => new AppError('invalid_token', 'The API key is not valid.');

  function admit(entry: CachedKey, now: number): AuthContext {
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw new AppError('token_expired', 'The API key has expired.');
    // Epoch ms here; turned into timestamps once per batch (API.md allows 60 s of lag).
    lastUsed.set(entry.id, now);
    return entry.auth;
  }

  /** Shape and checksum first (no hashing for junk), then the SHA-256 the key is stored under. */
  function hashOf(secret: string): string {
    let hash = hashes.get(secret);
    if (hash === undefined) {
      if (!isWellFormedApiKey(secret)) throw invalid();
      hash = sha256Hex(secret);
      hashes.set(secret, hash);
    }
    return hash;
  }

  function fromCache(hash: string, now: number): AuthContext | undefined {
    const entry = known.get(hash);
    if (entry === undefined) return undefined;
    if (now - entry.cachedAt > CACHE_TTL_MS) {
      known.delete(hash);
      return undefined;
    }
    return admit(entry, now);
  }

  const verifier: ApiKeyVerifier & { flush(): Promise<void>; close(): Promise<void> } = {
    verifyCached: (secret) => fromCache(hashOf(secret), clock.now()),

    async verify(secret): Promise<AuthContext> {
      const hash = hashOf(secret);
      const now = clock.now();
      const cached = fromCache(hash, now);
      if (cached) return cached;
      const blockedUntil = unknown.get(hash);
      if (blockedUntil !== undefined && blockedUntil > now) throw invalid();
      const row = await repo.findByHash(hash);
      if (!row || row.revoked_at !== null) {
        unknown.set(hash, now + NEGATIVE_TTL_MS);
        throw invalid();
      }
      const scopes = new Set(row.scopes.split(' ').filter(Boolean));
      const entry: CachedKey = {
        id: row.id, expiresAt: row.expires_at ? Date.parse(row.expires_at) : null, cachedAt: now,
        auth: Object.freeze({ userId: row.user_id, sessionId: null, credential: 'api_key' as const, scopes, apiKeyId: row.id, apiKeyHash: row.secret_hash, expiresAt: row.expires_at ? Date.parse(row.expires_at) : null }),
      };
      // A revocation announced while we read the row put the hash in `unknown`: do not cache a
      // key that is already revoked (it was not blocked before the read, or we would have thrown).
      const revokedMeanwhile = unknown.get(hash);
      if (revokedMeanwhile !== undefined && revokedMeanwhile > clock.now()) throw invalid();
      known.set(hash, entry);
      return admit(entry, now);
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
