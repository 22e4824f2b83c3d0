import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import type { OidcProviderConfig } from '../../config.js';
import { AppError } from '../../kernel/errors.js';

/** What a provider proved about the person who signed in there. */
export interface ProviderClaims {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/** The secrets of one sign-in at a provider, kept by Gatehouse between the redirect and the callback. */
export interface ProviderChecks {
  state: string;
  nonce: string;
  verifier: string;
}

export interface ProviderClient {
  readonly id: string;
  readonly name: string;
  readonly type: OidcProviderConfig['type'];
  /** A verified email may link to an existing account with that address. */
  readonly linkByEmail: boolean;
  /** Whether the browser flow is configured (a client id and secret), not only native ID tokens. */
  readonly webSignIn: boolean;
  /** Whether native apps' ID tokens are taken (`native_client_ids`). */
  readonly nativeSignIn: boolean;
  /** The provider's authorization URL for a new sign-in (discovers the issuer on first use). */
  authorizationUrl(checks: ProviderChecks): Promise<URL>;
  /**
   * The provider's answer at the callback (`code`, `state`, `iss`…): redeems the code with
   * Gatehouse's PKCE verifier and, for OIDC, verifies the ID token (signature, issuer, audience,
   * expiry, nonce). Throws on anything it cannot verify.
   */
  redeem(callbackParams: URLSearchParams, checks: ProviderChecks): Promise<ProviderClaims>;
  /**
   * An ID token a native sign-in sheet returned to an app (Sign in with Apple, Google's): its
   * signature by the issuer's keys, `iss`, `aud` (one of `native_client_ids`), expiry and, when it
   * carries one, the nonce. Throws IdTokenRefused for a token that fails a check, anything else
   * when the issuer cannot be reached.
   */
  verifyIdToken(idToken: string, nonce: string | undefined, now: Date): Promise<ProviderClaims>;
}

/** An ID token failed a check: why, for operators (the client hears only that it was refused). */
export class IdTokenRefused extends Error {}

/** Seconds of clock difference tolerated between the issuer and this server. */
const ID_TOKEN_CLOCK_TOLERANCE_S = 30;
/** Keys an ID token may be signed with: what Apple (RS256) and Google (RS256) and most issuers use. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * The app hashed its nonce for the provider (Apple's sheet wants SHA-256 in hex) or passed it as
 * it is (Google's): the token's `nonce` is one of the two.
 */
function nonceMatches(claimed: unknown, nonce: string | undefined): boolean {
  if (claimed === undefined) return nonce === undefined;
  if (typeof claimed !== 'string' || nonce === undefined) return false;
  return claimed === nonce || claimed === createHash('sha256').update(nonce).digest('hex');
}

/** What an ID token says of its person, in the shape every provider answers. */
function claimsOf(payload: JWTPayload & Record<string, unknown>): ProviderClaims {
  return {
    subject: payload.sub ?? '',
    email: typeof payload.email === 'string' ? payload.email : null,
    // Apple sends "true" as a string.
    emailVerified: payload.email_verified === true || payload.email_verified === 'true',
    name: typeof payload.name === 'string' ? payload.name : null,
  };
}

/** Seconds a call to a provider may take (discovery, token, userinfo, GitHub's API). */
const PROVIDER_TIMEOUT_S = 10;
const isLoopbackHttp = (url: string) => new URL(url).protocol === 'http:';

/**
 * One client per configured provider, on openid-client: discovery (cached; tried again after a
 * failure), authorization code with PKCE, `state` and `nonce`. GitHub speaks OAuth 2 without ID
 * tokens: its person and verified email come from its REST API.
 */
export function createProviderClients(providers: OidcProviderConfig[], callbackUrl: (providerId: string) => string): Map<string, ProviderClient> {
  return new Map(providers.map((p) => [p.id, p.type === 'github' ? githubClient(p, callbackUrl(p.id)) : oidcClient(p, callbackUrl(p.id))]));
}

function authorizationParameters(p: OidcProviderConfig, redirectUri: string, checks: ProviderChecks, challenge: string): Record<string, string> {
  return {
    ...p.authorizationParams, redirect_uri: redirectUri, scope: p.scopes.join(' '), state: checks.state,
    code_challenge: challenge, code_challenge_method: 'S256',
  };
}

/** The callback's own parameters, on the URL the provider was told to return to. */
function callbackUrlWith(redirectUri: string, params: URLSearchParams): URL {
  const url = new URL(redirectUri);
  for (const name of ['code', 'state', 'iss', 'error', 'error_description']) {
    const value = params.get(name);
    if (value !== null) url.searchParams.set(name, value);
  }
  return url;
}

function lazyConfiguration(load: () => Promise<oidc.Configuration>): () => Promise<oidc.Configuration> {
  let pending: Promise<oidc.Configuration> | undefined;
  return () => {
    pending ??= load().then((config) => {
      config.timeout = PROVIDER_TIMEOUT_S;
      return config;
    }, (error) => {
      pending = undefined; // the issuer was down: the next sign-in tries again
      throw error;
    });
    return pending;
  };
}

/** The browser flow of a provider configured only for native ID tokens: there is none. */
function noWebSignIn(p: OidcProviderConfig): never {
  throw new AppError('not_found', `${p.name} sign-in is configured here for native apps only (ID tokens at POST /v1/auth/id-token).`);
}

/** Google's ID tokens name their issuer with or without the scheme. */
function acceptedIssuers(p: OidcProviderConfig, discovered: string): string[] {
  return p.type === 'google' && discovered === 'https://accounts.google.com' ? [discovered, 'accounts.google.com'] : [discovered];
}

function oidcClient(p: OidcProviderConfig, redirectUri: string): ProviderClient {
  // A provider for native ID tokens only has no client of its own here: discovery needs some id.
  const clientId = p.clientId ?? p.nativeClientIds[0]!;
  const configuration = lazyConfiguration(() => oidc.discovery(new URL(p.issuer), clientId, undefined, p.clientSecret === null ? oidc.None() : oidc.ClientSecretPost(p.clientSecret), {
    execute: isLoopbackHttp(p.issuer) ? [oidc.allowInsecureRequests] : [], timeout: PROVIDER_TIMEOUT_S,
  }));
  // The issuer's keys, fetched on first use and again for an unknown `kid` (at most every 30 s).
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const issuerKeys = async () => {
    const metadata = (await configuration()).serverMetadata();
    if (!metadata.jwks_uri) throw new Error(`${p.issuer} publishes no jwks_uri`);
    keys ??= createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: PROVIDER_TIMEOUT_S * 1000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    return { keys, issuers: acceptedIssuers(p, metadata.issuer) };
  };
  const webSignIn = p.clientId !== null;
  return {
    id: p.id, name: p.name, type: p.type, linkByEmail: p.linkByEmail, webSignIn, nativeSignIn: p.nativeClientIds.length > 0,
    async verifyIdToken(idToken, nonce, now) {
      if (p.nativeClientIds.length === 0) throw new IdTokenRefused(`${p.id} has no native_client_ids`);
      const { keys: jwks, issuers } = await issuerKeys();
      let payload: JWTPayload & Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(idToken, jwks, {
          issuer: issuers, audience: p.nativeClientIds, algorithms: ID_TOKEN_ALGORITHMS, currentDate: now, clockTolerance: ID_TOKEN_CLOCK_TOLERANCE_S, requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (error) {
        // The issuer's keys could not be fetched: not the token's fault (the caller answers 503).
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('ERR_J') && code !== 'ERR_JWKS_TIMEOUT' && code !== 'ERR_JWKS_INVALID') {
          throw new IdTokenRefused(`${code}: ${(error as Error).message}`);
        }
        throw error;
      }
      if (!nonceMatches(payload.nonce, nonce)) throw new IdTokenRefused('nonce mismatch');
      return claimsOf(payload);
    },
    async authorizationUrl(checks) {
      if (!webSignIn) noWebSignIn(p);
      const challenge = await oidc.calculatePKCECodeChallenge(checks.verifier);
      return oidc.buildAuthorizationUrl(await configuration(), { ...authorizationParameters(p, redirectUri, checks, challenge), nonce: checks.nonce });
    },
    async redeem(params, checks) {
      if (!webSignIn) noWebSignIn(p);
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrlWith(redirectUri, params), {
        pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
      });
      const idToken = tokens.claims()!;
      let claims: Record<string, unknown> = idToken;
      // Some issuers put the email only in the userinfo answer: then the address and whether it is
      // verified both come from there, never one from each.
      if (typeof idToken.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
        claims = { ...idToken, email: info.email, email_verified: info.email_verified, name: idToken.name ?? info.name };
      }
      return {
        subject: idToken.sub,
        email: typeof claims.email === 'string' ? claims.email : null,
        // Apple sends "true" as a string.
        emailVerified: claims.email_verified === true || claims.email_verified === 'true',
        name: typeof claims.name === 'string' ? claims.name : null,
      };
    },
  };
}

/** GitHub's web base → its REST API (github.com's lives on its own host; Enterprise's under /api/v3). */
function githubApiBase(issuer: string): string {
  return new URL(issuer).hostname === 'github.com' ? 'https://api.github.com' : `${issuer}/api/v3`;
}

function githubClient(p: OidcProviderConfig, redirectUri: string): ProviderClient {
  const server: oidc.ServerMetadata = { issuer: p.issuer, authorization_endpoint: `${p.issuer}/login/oauth/authorize`, token_endpoint: `${p.issuer}/login/oauth/access_token` };
  // config.ts requires GitHub's client id and secret: it has no native ID tokens.
  const configuration = lazyConfiguration(async () => {
    const config = new oidc.Configuration(server, p.clientId!, undefined, oidc.ClientSecretPost(p.clientSecret!));
    if (isLoopbackHttp(p.issuer)) oidc.allowInsecureRequests(config);
    return config;
  });
  const api = githubApiBase(p.issuer);
  const get = async (path: string, token: string): Promise<unknown> => {
    const response = await fetch(`${api}${path}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/vnd.github+json', 'User-Agent': 'Gatehouse' },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_S * 1000),
    });
    if (!response.ok) throw new Error(`GitHub ${path} answered ${response.status}`);
    return response.json();
  };
  return {
    id: p.id, name: p.name, type: p.type, linkByEmail: p.linkByEmail, webSignIn: true, nativeSignIn: false,
    async verifyIdToken() {
      throw new IdTokenRefused('GitHub issues no ID tokens');
    },
    async authorizationUrl(checks) {
      const challenge = await oidc.calculatePKCECodeChallenge(checks.verifier);
      return oidc.buildAuthorizationUrl(await configuration(), authorizationParameters(p, redirectUri, checks, challenge));
    },
    async redeem(params, checks) {
      const tokens = await oidc.authorizationCodeGrant(await configuration(), callbackUrlWith(redirectUri, params), {
        pkceCodeVerifier: checks.verifier, expectedState: checks.state, idTokenExpected: false,
      });
      const user = await get('/user', tokens.access_token) as { id?: unknown; name?: unknown; login?: unknown };
      if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error('GitHub /user has no id');
      // The primary address, and only if GitHub has verified it.
      const emails = await get('/user/emails', tokens.access_token) as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>;
      const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true && typeof e.email === 'string') : undefined;
      return {
        subject: String(user.id),
        email: (primary?.email as string | undefined) ?? null,
        emailVerified: primary?.verified === true,
        name: typeof user.name === 'string' && user.name ? user.name : typeof user.login === 'string' ? user.login : null,
      };
    },
  };
}
