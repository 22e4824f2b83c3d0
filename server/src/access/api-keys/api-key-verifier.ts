import { RefusedCredential, type ApiKeyVerifier, type AuthContext, type KeyInspection } from '../../kernel/access-terms/credentials.js';
import { UNLIMITED } from '../../kernel/access-terms/tiers.js';
import { AppError } from '../../kernel/errors.js';
import type { Bus } from '../../kernel/bus.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { LruCache } from '../../kernel/lru-cache.js';
import { sha256Hex } from '../../kernel/opaque-tokens.js';
import { isWellFormedApiKey } from './api-key-format.js';
import type { ApiKeysRepository } from './api-keys.repository.js';

interface CachedKey {
  id: string;
  userId: string;
  /** When this secret stops working: the key's expiry, or the end of a rolled secret's grace. */
  expiresAt: number | null;
  /** The secret before the last roll (working until its grace ends). */
  previous: boolean;
  cachedAt: number;
  /** Built once per cache fill: the hot path hands out the same frozen context every time. */
  auth: AuthContext;
}

/** Why a hash does not authenticate, remembered briefly (revocations for longer). */
interface Refusal {
  until: number;
  reason: 'not_found' | 'revoked';
}

const NOT_FOUND: KeyInspection = Object.freeze({ status: 'not_found' });

/** A safety net only: revocations arrive by the bus at once; this bounds a missed message. */
const CACHE_TTL_MS = 5 * 60_000;
const NEGATIVE_TTL_MS = 60_000;
const LAST_USED_FLUSH_MS = 30_000;

/**
 * Resolves `gth_…` keys on the hot path: shape and checksum first (no I/O for junk), then
 * an LRU of known hashes, then one indexed lookup. Unknown hashes are remembered briefly so a
 * flood of well-formed fakes cannot hammer the database. `last_used_at` is collected in memory
 * and written in one batch every 30 s (the API promises last_used_at within 60 s).
 */
export function createApiKeyVerifier(deps: { repo: ApiKeysRepository; bus: Bus; clock: Clock; onError: (e: unknown) => void }) {
  const { repo, bus, clock } = deps;
  const known = new LruCache<string, CachedKey>(50_000);
  const unknown = new LruCache<string, Refusal>(50_000);
  // The SHA-256 of keys seen recently, so a repeat caller is not hashed again. (The process holds
  // live credentials in memory anyway: verified access tokens are cached whole.) Only well-formed
  // keys enter; a revoked key's hash is gone from `known`, so this map alone admits nothing.
  const hashes = new LruCache<string, string>(50_000);
  const lastUsed = new Map<string, number>();

  // Bumped by every change announced: a lookup that was reading while one arrived does not cache
  // what it read (the row may be from before the change, and nothing would drop it later).
  let changes = 0;

  bus.subscribe((message) => {
    if (message.type === 'api-keys-changed') {
      // Renamed, narrowed, limited or rolled: read again on next use.
      changes++;
      for (const hash of message.hashes) known.delete(hash);
      return;
    }
    if (message.type !== 'api-keys-revoked') return;
    for (const hash of message.hashes) {
      known.delete(hash);
      unknown.set(hash, { until: clock.now() + CACHE_TTL_MS, reason: 'revoked' });
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

  function isExpired(entry: CachedKey, now: number): boolean {
    return entry.expiresAt !== null && entry.expiresAt <= now;
  }

  function admit(entry: CachedKey, now: number): AuthContext {
    if (isExpired(entry, now)) {
      throw new RefusedCredential('token_expired', entry.previous ? 'This secret of the API key was replaced by a roll and its grace period is over.' : 'The API key has expired.', {
        userId: entry.userId, orgId: entry.auth.orgId ?? null, apiKeyId: entry.id,
      });
    }
    // Epoch ms here; turned into timestamps once per batch (the API promises last_used_at within 60 s).
    lastUsed.set(entry.id, now);
    return entry.auth;
  }

  /** Shape and checksum first (no hashing for junk), then the SHA-256 the key is stored under. */
  function hashOf(secret: string): string | undefined {
    let hash = hashes.get(secret);
    if (hash === undefined) {
      if (!isWellFormedApiKey(secret)) return undefined;
      hash = sha256Hex(secret);
      hashes.set(secret, hash);
    }
    return hash;
  }

  function cachedEntry(hash: string, now: number): CachedKey | undefined {
    const entry = known.get(hash);
    if (entry === undefined) return undefined;
    if (now - entry.cachedAt > CACHE_TTL_MS) {
      known.delete(hash);
      return undefined;
    }
    return entry;
  }

  function refusalOf(hash: string, now: number): Refusal | undefined {
    const refusal = unknown.get(hash);
    return refusal !== undefined && refusal.until > now ? refusal : undefined;
  }

  /** The key behind a hash: from the cache, or one indexed lookup (its present or its previous secret). */
  async function lookup(hash: string, retries = 2): Promise<CachedKey | Refusal> {
    const now = clock.now();
    const cached = cachedEntry(hash, now);
    if (cached) return cached;
    const refused = refusalOf(hash, now);
    if (refused) return refused;
    const changesBefore = changes;
    const row = await repo.findByHash(hash);
    if (!row || row.revoked_at !== null) {
      const refusal: Refusal = { until: now + NEGATIVE_TTL_MS, reason: row ? 'revoked' : 'not_found' };
      unknown.set(hash, refusal);
      return refusal;
    }
    const keyExpiresAt = row.expires_at ? Date.parse(row.expires_at) : null;
    // The secret before the last roll works until its grace ends (or the key expires, if sooner).
    const graceEndsAt = row.secret_hash === hash ? null : Date.parse(row.previous_expires_at ?? '1970-01-01T00:00:00.000Z');
    const expiresAt = graceEndsAt === null ? keyExpiresAt : keyExpiresAt === null ? graceEndsAt : Math.min(keyExpiresAt, graceEndsAt);
    const ownBudget = row.rate_limit_per_minute !== null || row.rate_limit_per_day !== null;
    const entry: CachedKey = {
      id: row.id, userId: row.user_id, expiresAt, cachedAt: now, previous: graceEndsAt !== null,
      auth: Object.freeze({
        userId: row.user_id, orgId: row.org_id, sessionId: null, credential: 'api_key' as const, scopes: new Set(row.scopes.split(' ').filter(Boolean)),
        apiKeyId: row.id, apiKeyHash: hash, expiresAt,
        keyBudget: ownBudget ? { id: row.id, limits: { per_minute: row.rate_limit_per_minute ?? UNLIMITED, per_day: row.rate_limit_per_day ?? UNLIMITED } } : undefined,
        usesLimited: row.remaining !== null,
      }),
    };
    // A revocation announced while we read the row put the hash in `unknown`: do not cache a
    // key that is already revoked (it was not refused before the read, or we would have returned).
    const revokedMeanwhile = refusalOf(hash, clock.now());
    if (revokedMeanwhile) return revokedMeanwhile;
    // A key changed meanwhile: read it again (the row read may predate the change); a key that
    // keeps changing is answered from a fresh read each time, never cached stale.
    if (changes !== changesBefore) return retries > 0 ? lookup(hash, retries - 1) : entry;
    known.set(hash, entry);
    return entry;
  }

  function inspection(found: CachedKey | Refusal): KeyInspection {
    if (!('auth' in found)) return { status: found.reason };
    if (isExpired(found, clock.now())) return { status: 'expired', auth: found.auth };
    lastUsed.set(found.id, clock.now());
    return { status: 'valid', auth: found.auth };
  }

  /** What the caches know of a hash now (a live key, or a remembered refusal); undefined: ask the database. */
  const cachedAnswer = (hash: string, now: number): CachedKey | Refusal | undefined => cachedEntry(hash, now) ?? refusalOf(hash, now);
  const authenticated = (found: CachedKey | Refusal, now: number): AuthContext => {
    if (!('auth' in found)) throw invalid();
    return admit(found, now);
  };

  const verifier: ApiKeyVerifier & { flush(): Promise<void>; close(): Promise<void> } = {
    verify(secret) {
      const hash = hashOf(secret);
      if (hash === undefined) throw invalid();
      const now = clock.now();
      const found = cachedAnswer(hash, now);
      return found !== undefined ? authenticated(found, now) : lookup(hash).then((read) => authenticated(read, clock.now()));
    },

    inspect(secret) {
      const hash = hashOf(secret);
      if (hash === undefined) return NOT_FOUND;
      const found = cachedAnswer(hash, clock.now());
      return found !== undefined ? inspection(found) : lookup(hash).then(inspection);
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
