import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { AppError } from '../../http/error-catalogue.js';
import type { Clock } from '../../infra/clock.js';
import { LruCache } from '../../infra/lru-cache.js';
import type { KeyRing } from './signing-keys.js';

export interface AccessClaims {
  sub: string; // user id
  sid: string; // session id
  scope: string;
  exp: number;
  iat: number;
  jti: string;
  /** `scope` parsed once, when the token is first verified; cached with the claims. */
  scopes: ReadonlySet<string>;
}

export interface AccessTokens {
  issue(input: { userId: string; sessionId: string; scope: string }): Promise<{ token: string; expiresIn: number }>;
  /** Throws AppError invalid_token / token_expired. Successful verifications are cached. */
  verify(token: string): Promise<AccessClaims>;
}

const ALLOWED_HEADER_KEYS = new Set(['alg', 'kid', 'typ']);
const CLOCK_TOLERANCE_S = 5;

export function accessTokenAudience(publicUrl: string): string {
  return `${publicUrl}/v1`;
}

export function createAccessTokens(deps: { keyRing: KeyRing; clock: Clock; issuer: string; ttlSeconds: number; cacheSize?: number }): AccessTokens {
  const { keyRing, clock, issuer, ttlSeconds } = deps;
  const audience = accessTokenAudience(issuer);
  // Signature checks cost ≈150 µs; a hit here costs a map lookup. Only verified tokens enter,
  // and expiry is re-checked on every hit, so a cached entry never outlives its token.
  const verified = new LruCache<string, AccessClaims>(deps.cacheSize ?? 10_000);
  const invalid = () => new AppError('invalid_token', 'The access token is not valid.');

  return {
    async issue({ userId, sessionId, scope }) {
      const { kid, privateKey } = keyRing.current();
      const now = Math.floor(clock.now() / 1000);
      const token = await new SignJWT({ sid: sessionId, scope })
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

    async verify(token) {
      const nowS = clock.now() / 1000;
      const hit = verified.get(token);
      if (hit) {
        if (hit.exp + CLOCK_TOLERANCE_S <= nowS) throw new AppError('token_expired', 'The access token has expired; refresh it.');
        return hit;
      }
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
          audience,
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
      const claims: AccessClaims = { sub, sid, scope, exp, iat, jti, scopes: new Set(scope.split(' ')) };
      verified.set(token, claims);
      return claims;
    },
  };
}
