import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, RouteOptions } from 'fastify';
import type { Clock } from '../infra/clock.js';
import type { RevocationList } from '../infra/revocation.js';
import type { AccountCache } from '../modules/accounts/account-cache.js';
import type { UserRow } from '../modules/users/users.repository.js';
import type { RateDecision, RateLimiter } from '../modules/limits/rate-limiter.js';
import { limitsFor } from '../core/tiers.js';
import type { AccessTokens } from '../modules/tokens/access-tokens.js';
import type { AuthContext, AuthRequirement } from './auth-context.js';
import type { ApiKeyVerifier } from '../core/credentials.js';
import { AppError } from '../core/errors.js';
import { spendAccountRouteLimit, type AccountRouteLimit } from './account-route-limit.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';
import { addResponses, prependOnRequest } from './route-hooks.js';
import { problemResponses } from './schemas.js';


export interface AuthenticateDeps {
  accessTokens: AccessTokens;
  revocations: RevocationList;
  apiKeys: ApiKeyVerifier;
  accounts: AccountCache;
  limiter: RateLimiter;
  /** The abuse limit of the routes that spend no budget. */
  accountRoutes: AccountRouteLimit;
  clock: Clock;
}

const REALM = 'Bearer realm="gatehouse"';
const MAX_CREDENTIAL_LENGTH = 4096;

function challenge(code: 'authentication_required' | 'invalid_token' | 'token_expired', detail: string): AppError {
  const header = code === 'authentication_required' ? REALM : `${REALM}, error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`;
  return new AppError(code, detail, { headers: { 'WWW-Authenticate': header } });
}

function asChallenge(error: unknown): never {
  if (error instanceof AppError && (error.code === 'invalid_token' || error.code === 'token_expired')) throw challenge(error.code, error.message);
  throw error;
}

/**
 * The fast path of `resolveCredential`: only for the canonical `Bearer <credential>` form and only
 * from the caches. Never throws: undefined means "take the full path", which parses leniently
 * and produces the right error for every case this one skips (expired, revoked, malformed).
 */
export function resolveCachedCredential(deps: Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'>, authorization: string | undefined): AuthContext | undefined {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) return undefined;
  const credential = authorization.slice(7);
  try {
    if (credential.startsWith('gth_')) return deps.apiKeys.verifyCached(credential);
    // An exact match with a token verified before (no whitespace can hide in it then).
    const claims = deps.accessTokens.verifyCached(credential);
    if (claims === undefined || deps.revocations.isRevoked(claims.sid)) return undefined;
    return { userId: claims.sub, sessionId: claims.sid, credential: 'access_token', scopes: claims.scopes };
  } catch {
    return undefined;
  }
}

/**
 * The other half of the fast path: the caller's account when it is cached, fresh and enabled;
 * undefined otherwise (no credential, not cached, stale, disabled), when only the full path
 * can answer.
 */
export function cachedEnabledAccount(deps: Pick<AuthenticateDeps, 'accounts'>, auth: AuthContext | undefined): UserRow | undefined {
  if (auth === undefined) return undefined;
  const account = deps.accounts.peek(auth.userId);
  return account === undefined || account.disabled ? undefined : account;
}

/** Tells an API key from an access token by prefix and verifies it (both paths cache). */
export async function resolveCredential(deps: Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'>, authorization: string | undefined): Promise<AuthContext> {
  if (!authorization) throw challenge('authentication_required', 'Send Authorization: Bearer <API key or access token>.');
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match || match[1]!.length > MAX_CREDENTIAL_LENGTH) throw challenge('invalid_token', 'The Authorization header must be "Bearer <credential>".');
  const credential = match[1]!;
  if (credential.startsWith('gth_')) return deps.apiKeys.verify(credential).catch(asChallenge);
  const claims = await deps.accessTokens.verify(credential).catch(asChallenge);
  if (deps.revocations.isRevoked(claims.sid)) throw challenge('invalid_token', 'The session of this token has been revoked.');
  return { userId: claims.sub, sessionId: claims.sid, credential: 'access_token', scopes: claims.scopes };
}

/** Why `auth` may not call a route requiring `requirement` (undefined: it may). Throws nothing. */
export function authorizationFailure(auth: AuthContext, requirement: AuthRequirement, role: string): AppError | undefined {
  if (requirement === 'any') return undefined;
  if (requirement === 'session' || requirement === 'admin') {
    if (auth.credential !== 'access_token') {
      return new AppError('session_required', 'Account management needs an access token from a login, not an API key.');
    }
    if (requirement === 'admin' && role !== 'admin') return new AppError('forbidden', 'This operation is for administrators.');
    return undefined;
  }
  if (!auth.scopes.has(requirement)) {
    return new AppError('insufficient_scope', `This credential lacks the ${requirement} scope.`, {
      headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${requirement}"` },
      required_scope: requirement,
    });
  }
  return undefined;
}

function rateLimited(decision: RateDecision): AppError {
  const window = decision.violated === 'day' ? 'day' : 'minute';
  const limit = window === 'day' ? decision.day.limit : decision.minute.limit;
  // The wait is in Retry-After and retry_after; the sentence does not repeat it (clients show it once, in their own words).
  return new AppError('rate_limited', `The account's ${window} limit of ${limit} requests is used up.`, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    window,
    limit,
    retry_after: decision.retryAfterSeconds,
  });
}

/** After the account is known and counted: headers, then 429, then the route's requirement. */
function admit(request: FastifyRequest, reply: FastifyReply, requirement: AuthRequirement, auth: AuthContext, account: UserRow, decision: RateDecision, nowMs: number): void {
  setRateLimitHeaders(reply, decision, nowMs);
  if (!decision.allowed) throw rateLimited(decision);
  authorize(request, requirement, auth, account);
  request.rateLimit = decision;
}

function authorize(request: FastifyRequest, requirement: AuthRequirement, auth: AuthContext, account: UserRow): void {
  const refused = authorizationFailure(auth, requirement, account.role);
  if (refused) throw refused;
  request.auth = auth;
  request.account = account;
}

/**
 * The authenticate step of every protected route: resolve the credential, load the account
 * (cached), then either spend one request of the account's budget (one limiter call, both
 * windows) or, on a budget-exempt route, its abuse limit; then check the route's requirement.
 * Counting comes before the scope check: API.md §5 counts every request that carries a valid
 * credential.
 */
export async function authenticate(deps: AuthenticateDeps, request: FastifyRequest, reply: FastifyReply, requirement: AuthRequirement): Promise<void> {
  const auth = await resolveCredential(deps, request.headers.authorization);
  const account = await deps.accounts.get(auth.userId);
  // The credential outlived its account (deleted): it no longer authenticates anyone.
  if (!account) throw challenge('invalid_token', 'The account behind this credential no longer exists.');
  if (account.disabled) throw new AppError('account_disabled', 'This account has been disabled; contact support.');
  if (request.routeOptions.config.budget === 'exempt') {
    await spendAccountRouteLimit(deps.accountRoutes, auth, request.ip);
    return authorize(request, requirement, auth, account);
  }
  const decision = await deps.limiter.consume(auth.userId, limitsFor(account));
  admit(request, reply, requirement, auth, account, decision, deps.clock.now());
}

/**
 * The same step as a callback-style hook for the routes that spend from the budget. When the
 * credential and the account are cached (nearly every request) it runs without a promise; with
 * the memory limiter it is then entirely synchronous, and with Redis the limiter's round trip (a
 * callback, no promise) is its only wait. Anything else (first use of a credential, a stale
 * account, any error to report, an exempt route) takes `authenticate`.
 */
function authenticateHook(deps: AuthenticateDeps, requirement: AuthRequirement, exempt: boolean): onRequestHookHandler {
  const slowPath = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    authenticate(deps, request, reply, requirement).then(() => done(), done);
  };
  if (exempt) return slowPath;
  return function authenticateRequest(request, reply, done) {
    const auth = resolveCachedCredential(deps, request.headers.authorization);
    const account = cachedEnabledAccount(deps, auth);
    if (auth === undefined || account === undefined) return slowPath(request, reply, done);
    const limits = limitsFor(account);
    if (deps.limiter.consumeNow !== undefined) return finish(deps, request, reply, requirement, auth, account, done, null, deps.limiter.consumeNow(auth.userId, limits));
    deps.limiter.consumeThen(auth.userId, limits, (error, decision) => finish(deps, request, reply, requirement, auth, account, done, error, decision));
  };
}

/** The hook's last step once the limiter answered (a top-level function: no closure per request). */
function finish(
  deps: AuthenticateDeps, request: FastifyRequest, reply: FastifyReply, requirement: AuthRequirement, auth: AuthContext, account: UserRow,
  done: HookHandlerDoneFunction, error: unknown, decision: RateDecision | undefined,
): void {
  if (decision === undefined) return done(error as Error);
  try {
    admit(request, reply, requirement, auth, account, decision, deps.clock.now());
  } catch (admitError) {
    return done(admitError as Error);
  }
  done();
}

/**
 * Every route that declares `config.auth` gets the check in onRequest (before the body is even
 * parsed, so anonymous callers cannot make us read bodies), plus the security requirement and
 * the 401/403/429 responses in its OpenAPI description. Routes cannot forget either half.
 */
export function registerAuthentication(app: FastifyInstance, deps: AuthenticateDeps): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('rateLimit', null);
  app.decorateRequest('account', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    const requirement = route.config?.auth;
    if (!requirement) return;
    prependOnRequest(route, authenticateHook(deps, requirement, route.config?.budget === 'exempt'));
    addResponses(route, problemResponses([401, 403, 429]), { security: [{ bearerAuth: [] }] });
  });
}

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.auth;
}

/** The caller's account as the authenticate step loaded it (cached at most ACCOUNT_CACHE_TTL_MS). */
export function requireAccount(request: FastifyRequest): UserRow {
  if (!request.account) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.account;
}
