import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { AppError } from '../../kernel/errors.js';
import type { Clock } from '../../kernel/clock.js';
import { LruCache } from '../../kernel/lru-cache.js';
import type { Eventually } from '../../kernel/eager.js';
import type { KeyRing } from './signing-keys.js';

export interface AccessClaims {
  sub: string; // user id
  sid: string; // session id
  scope: string;
  /** How the session was authenticated (RFC 8176): `pwd`, then `otp` when a second factor was proved. */
  amr: string[];
  exp: number;
  iat: number;
  jti: string;
  /** `scope` parsed once, when the token is first verified; cached with the claims. */
  scopes: ReadonlySet<string>;
  /**
   * Present for an OAuth access token (RFC 9068, `typ: at+jwt`) issued to an app under a
   * person's grant: the app, the one organization the grant acts for, and the resource it is
   * bound to (RFC 8707: the REST API or the MCP endpoint). `sid` is then the grant.
   */
  oauth?: { clientId: string; orgId: string; resource: TokenResource };
}

/** What an app's token is for: the REST API (`PUBLIC_URL/v1`) or the MCP endpoint (`PUBLIC_URL/v1/mcp`). */
export type TokenResource = 'api' | 'mcp';

export interface AccessTokens {
  issue(input: { userId: string; sessionId: string; scope: string; amr: readonly string[] }): Promise<{ token: string; expiresIn: number }>;
  /**
   * The token's claims: at once for a token verified before (the cache), else after the signature
   * check. Refuses with AppError invalid_token / token_expired (thrown at once or rejected).
   */
  verify(token: string): Eventually<AccessClaims>;
  /** Stops the sweep of expired tokens from the cache. */
  close(): void;
}

/**
 * The cache is keyed by the last characters of the token, which lie in its EdDSA signature
 * (86 characters): hashing 32 characters per lookup instead of a ≈600-character JWT. A hit counts
 * only if the whole token is equal, so a token that merely shares a tail is verified in full.
 */
const CACHE_KEY_CHARS = 32;
interface CachedToken {
  token: string;
  claims: AccessClaims;
}

const ALLOWED_HEADER_KEYS = new Set(['alg', 'kid', 'typ']);
const CLOCK_TOLERANCE_S = 5;
/** How often expired tokens are dropped from the cache (a hit re-checks expiry anyway). */
export const EXPIRED_SWEEP_MS = 60_000;

export function accessTokenAudience(publicUrl: string): string {
  return `${publicUrl}/v1`;
}

/** The audience of a token for the MCP endpoint (an app's token only: a login's is for the REST API). */
export function mcpAudience(publicUrl: string): string {
  return `${publicUrl}/v1/mcp`;
}

export function createAccessTokens(deps: { keyRing: KeyRing; clock: Clock; issuer: string; ttlSeconds: number; cacheSize?: number }): AccessTokens {
  const { keyRing, clock, issuer, ttlSeconds } = deps;
  const audience = accessTokenAudience(issuer);
  const mcp = mcpAudience(issuer);
  // Signature checks cost ≈150 µs; a hit here costs a map lookup. Only verified tokens enter,
  // and expiry is re-checked on every hit, so a cached entry never outlives its token.
  const verified = new LruCache<string, CachedToken>(deps.cacheSize ?? 10_000);
  const invalid = () => new AppError('invalid_token', 'The access token is not valid.');
  // An expired token can never be a hit again; without this sweep it would stay until evicted,
  // so a quiet cache would hold a day of logins' worth of dead tokens (the soak's slow rise).
  const sweep = setInterval(() => {
    const now = clock.now() / 1000;
    verified.deleteWhere((entry) => entry.claims.exp + CLOCK_TOLERANCE_S <= now);
  }, EXPIRED_SWEEP_MS);
  sweep.unref();

  /** A token verified before, at once; undefined when it is not in the cache. Throws token_expired for a cached, expired one. */
  function verifyCached(token: string): AccessClaims | undefined {
    const hit = verified.get(token.slice(-CACHE_KEY_CHARS));
    if (hit === undefined || hit.token !== token) return undefined;
    if (hit.claims.exp + CLOCK_TOLERANCE_S <= clock.now() / 1000) throw new AppError('token_expired', 'The access token has expired; refresh it.');
    return hit.claims;
  }

  return {
    async issue({ userId, sessionId, scope, amr }) {
      const { kid, privateKey } = keyRing.current();
      const now = Math.floor(clock.now() / 1000);
      const token = await new SignJWT({ sid: sessionId, scope, amr: [...amr] })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(userId)
        .setIssuedAt(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomUUID())
        .sign(privateKey);
      return { token, expiresIn: ttlSeconds };
    },

    close: () => clearInterval(sweep),

    verify: (token) => verifyCached(token) ?? verifyFully(token),
  };

  async function verifyFully(token: string): Promise<AccessClaims> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw invalid();
    }
    // Only EdDSA, whatever the token asks for: no `none`, no HS* with the public key as secret,
    // no embedded jwk/jku/x5u telling us which key to trust.
    if (header.alg !== 'EdDSA' || typeof header.kid !== 'string' || Object.keys(header).some((k) => !ALLOWED_HEADER_KEYS.has(k))) {
      throw invalid();
    }
    const key = await keyRing.publicKey(header.kid);
    if (!key) throw invalid();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        issuer,
        audience: [audience, mcp],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(clock.now()),
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppError('token_expired', 'The access token has expired; refresh it.');
      throw invalid();
    }
    const { sub, sid, scope, exp, iat, jti } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || typeof scope !== 'string' || typeof exp !== 'number' || typeof iat !== 'number' || typeof jti !== 'string') {
      throw invalid();
    }
    // One audience only: the engine binds each token to one resource, and a token naming both
    // would pass wherever it is shown.
    const aud = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
    const resource: TokenResource | undefined = aud === audience ? 'api' : aud === mcp ? 'mcp' : undefined;
    if (resource === undefined) throw invalid();
    // An app's token from the authorization server (access/oauth/): the same key and issuer, told
    // apart by its type, and bound to the app, the grant's organization and its resource.
    if (header.typ === 'at+jwt') {
      const { client_id: clientId, org } = payload;
      if (typeof clientId !== 'string' || typeof org !== 'string') throw invalid();
      const claims: AccessClaims = { sub, sid, scope, amr: [], exp, iat, jti, scopes: new Set(scope.split(' ')), oauth: { clientId, orgId: org, resource } };
      verified.set(token.slice(-CACHE_KEY_CHARS), { token, claims });
      return claims;
    }
    if ((header.typ !== undefined && header.typ !== 'JWT') || resource !== 'api') throw invalid();
    // Tokens signed before `amr` existed came from password logins; a present but malformed one is no token of ours.
    if (payload.amr !== undefined && !(Array.isArray(payload.amr) && payload.amr.every((m) => typeof m === 'string'))) throw invalid();
    const amr = (payload.amr as string[] | undefined) ?? ['pwd'];
    const claims: AccessClaims = { sub, sid, scope, amr, exp, iat, jti, scopes: new Set(scope.split(' ')) };
    verified.set(token.slice(-CACHE_KEY_CHARS), { token, claims });
    return claims;
  }
}
