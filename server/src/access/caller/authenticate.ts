import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, RouteOptions } from 'fastify';
import type { Clock } from '../../kernel/clock.js';
import type { RevocationList } from '../../kernel/revocation.js';
import type { AccessClaims, AccessTokens, AccountCache, UserRow } from '../../identity/index.js';
import type { Membership, OrganizationCache } from '../organizations/organization-cache.js';
import { atLeast, insufficientRole, ROLE_SCOPES, roleForScope, type OrgRole } from '../../kernel/access-terms/roles.js';
import { isId } from '../../kernel/ids.js';
import { clientOf } from '../../kernel/client-info.js';
import type { AuditActor } from '../organizations/audit-log.js';
import type { RateDecision, RateLimiter } from '../../kernel/limits/limiter.js';
import { limitsFor } from '../../kernel/access-terms/tiers.js';
import type { AuthContext, AuthRequirement, BudgetMode } from '../../http/route-config.js';
import { challenge, parseBearer, REALM } from '../../http/caller.js';
import { RefusedCredential, type ApiKeyVerifier } from '../../kernel/access-terms/credentials.js';
import { isServiceScope } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';
import { spendAccountRouteLimit, type AccountRouteLimit } from './account-route-limit.js';
import { setRateLimitHeaders } from '../../http/rate-limit-headers.js';
import { setCommonHeaders, settingCommonHeaders } from '../../http/common-headers.js';
import { addResponses, prependOnRequest } from '../../http/route-hooks.js';
import { problemResponses } from '../../http/schemas.js';
import { routePolicy, type RoutePolicy } from '../../http/route-policy.js';
import { organizationNotFound } from '../organizations/caller-role.js';
import { budgetKeyOf } from '../usage/budget-key.js';

/** A refused credential as the 401 its caller gets (with the challenge header). */
function asChallenge(error: unknown): unknown {
  if (error instanceof AppError && (error.code === 'invalid_token' || error.code === 'token_expired')) return challenge(error.code, error.message);
  return error;
}

export interface AuthenticateDeps {
  accessTokens: AccessTokens;
  revocations: RevocationList;
  apiKeys: ApiKeyVerifier;
  accounts: AccountCache;
  /** The organization a request acts for and the caller's role in it. */
  organizations: OrganizationCache;
  limiter: RateLimiter;
  /** The abuse limit of the routes that spend no budget. */
  accountRoutes: AccountRouteLimit;
  /** Spends uses of a key that has a number of them (api-keys service). */
  keyUses: { spendUses(keyId: string, cost: number): Promise<{ remaining: number } | { exhausted: true; retryAfterSeconds: number | null }> };
  /** Counts each authenticated request by outcome for the usage history (in memory; written in batches). */
  usage: { record(orgId: string, keyId: string | null, outcome: UsageOutcome): void };
  clock: Clock;
}

/** How a request that named its account ended, for the usage history. */
export type UsageOutcome = 'ok' | 'rate_limited' | 'unauthorized' | 'forbidden';

function sessionContext(deps: Pick<AuthenticateDeps, 'revocations'>, claims: AccessClaims): AuthContext {
  if (deps.revocations.isRevoked(claims.sid)) throw new RefusedCredential('invalid_token', 'The session of this token has been revoked.', { userId: claims.sub, orgId: null, apiKeyId: null });
  return { userId: claims.sub, sessionId: claims.sid, credential: 'access_token', scopes: claims.scopes, expiresAt: claims.exp * 1000 };
}

/**
 * Who a credential belongs to: an API key (by prefix) or an access token, verified behind their
 * caches. A credential verified before comes back as it is, without a promise (nearly every
 * request); a new one as a promise. Credential errors are thrown (or rejected) as they are: a
 * RefusedCredential names the owner (see `refusedCredential`).
 */
function identify(deps: Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'>, credential: string): AuthContext | Promise<AuthContext> {
  if (credential.startsWith('gth_')) return deps.apiKeys.verifyCached(credential) ?? deps.apiKeys.verify(credential);
  const claims = deps.accessTokens.verifyCached(credential);
  if (claims !== undefined) return sessionContext(deps, claims);
  return deps.accessTokens.verify(credential).then((verified) => sessionContext(deps, verified));
}

/** The same, with credential errors as 401 challenges (for routes that authenticate on their own). */
export function resolveCredential(deps: Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'>, credential: string): AuthContext | Promise<AuthContext> {
  try {
    const auth = identify(deps, credential);
    return auth instanceof Promise ? auth.catch((error: unknown) => Promise.reject(asChallenge(error))) : auth;
  } catch (error) {
    throw asChallenge(error);
  }
}

/**
 * Why the account behind a valid credential may not act now, as every check of a caller answers
 * (the authenticate step, a stream's last check, sessionCaller); undefined: it may. Gone: the
 * credential outlived it. Scheduled for deletion: its sessions and keys were revoked with the
 * request, and this refuses any that slipped past (a key made at that moment) for the whole grace.
 */
export function accountRefusal(account: UserRow | undefined): AppError | undefined {
  if (!account) return challenge('invalid_token', 'The account behind this credential no longer exists.');
  if (account.disabled) return new AppError('account_disabled', 'This account has been disabled; contact support.');
  if (account.deletion_due_at !== null) return challenge('invalid_token', 'This account is scheduled for deletion: sign in again to restore it.');
  return undefined;
}

/**
 * For a public route that one kind of request takes a session for (POST /v1/auth/email/verify
 * with a change of email's link): the user whose access token `authorization` carries, checked as
 * the authenticate step checks a 'session' route's caller (the credential, an API key refused, the
 * account gone, disabled or being deleted), or the error that step would answer, with its
 * challenge. Never throws a refusal: the route decides whether the session is needed. `missing` is
 * the detail of the 401 when no credential came.
 */
export async function sessionCaller(
  deps: Pick<AuthenticateDeps, 'accessTokens' | 'revocations' | 'apiKeys'> & { accounts: Pick<AccountCache, 'get'> },
  authorization: string | undefined,
  missing: string,
): Promise<{ userId: string } | { refused: AppError }> {
  if (!authorization) return { refused: challenge('authentication_required', missing) };
  try {
    const auth = await resolveCredential(deps, parseBearer(authorization));
    if (auth.credential !== 'access_token') return { refused: new AppError('session_required', 'This needs an access token from a login, not an API key.') };
    const refused = accountRefusal(await deps.accounts.get(auth.userId));
    return refused ? { refused } : { userId: auth.userId };
  } catch (error) {
    if (error instanceof AppError) return { refused: error };
    throw error;
  }
}

/**
 * Why `auth` may not call a route requiring `requirement` (undefined: it may). Throws nothing.
 * `role` is the user's role on the service (admin or user), `orgRole` the caller's role in the
 * organization the request acts for: a credential acts with its own scopes narrowed to what that
 * role allows (ROLE_SCOPES), so a viewer's token cannot write and a key never does more than the
 * member who created it may do now.
 */
export function authorizationFailure(auth: AuthContext, requirement: AuthRequirement, role: string, orgRole: OrgRole): AppError | undefined {
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
  if (isServiceScope(requirement)) {
    // A service key works no longer than its maker's role on the service.
    return role === 'admin' ? undefined : new AppError('forbidden', 'Service keys work only while their owner is an administrator.');
  }
  if (!ROLE_SCOPES[orgRole].has(requirement)) return insufficientRole(roleForScope(requirement), orgRole);
  return undefined;
}

/** The header a token names the organization it acts for with (absent: the user's personal one). */
export const ORGANIZATION_HEADER = 'gatehouse-organization';

function rateLimited(decision: RateDecision): AppError {
  const window = decision.violated === 'day' ? 'day' : 'minute';
  const limit = window === 'day' ? decision.day.limit : decision.minute.limit;
  const whose = decision.limitedBy === 'api_key' ? "API key's own" : "account's";
  // The wait is in Retry-After and retry_after; the sentence does not repeat it (clients show it once, in their own words).
  return new AppError('rate_limited', `The ${whose} ${window} limit of ${limit} requests is used up.`, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    window,
    limit,
    limited_by: decision.limitedBy ?? 'account',
    retry_after: decision.retryAfterSeconds,
  });
}

/** 429 for a key whose uses are spent; with Retry-After when a refill will bring more. */
export function usageExceeded(retryAfterSeconds: number | null): AppError {
  const refill = retryAfterSeconds === null ? 'it has no refill' : 'its refill brings more';
  return new AppError('usage_exceeded', `This API key has no uses left; ${refill}.`, {
    ...(retryAfterSeconds === null ? {} : { headers: { 'Retry-After': String(retryAfterSeconds) }, retry_after: retryAfterSeconds }),
  });
}

/**
 * The organization a request acts for: an API key's own (a header naming another is refused), or
 * for an access token the one its Gatehouse-Organization header names, by default the user's
 * personal one. Whether the caller belongs to it is the membership lookup's to say.
 */
function organizationOf(request: FastifyRequest, auth: AuthContext, account: UserRow): string | AppError {
  const named = request.headers[ORGANIZATION_HEADER];
  if (auth.orgId !== undefined) {
    if (named !== undefined && named !== auth.orgId) return new AppError('not_a_member', 'An API key acts only for its own organization; leave out Gatehouse-Organization or name that one.');
    return auth.orgId;
  }
  if (named === undefined) return account.personal_org_id;
  if (typeof named !== 'string' || !isId('organization', named)) return new AppError('invalid_request', 'Gatehouse-Organization must be an organization id (org_…).');
  return named;
}

/** The organization of a route under /organizations/{id}: its path's; a malformed id is a missing one (404). */
function pathOrganization(request: FastifyRequest): string | AppError {
  const { id } = request.params as { id?: unknown };
  return typeof id === 'string' && isId('organization', id) ? id : organizationNotFound();
}

/**
 * The authenticate step of every protected route, as its onRequest hook: parse the header,
 * resolve the credential (cached), load the account (cached), spend one request (one limiter
 * call: the account's budget and the key's own, or on a budget-exempt route its abuse limit),
 * check the route's requirement, and spend a use of a key that has a number of them. Each stage
 * goes on synchronously when its answer is at hand and after its promise otherwise, so a request
 * whose credential and account are cached creates no promise on the memory limiter and waits
 * only for the round trip on Redis. Counting comes before the scope check: the budget counts
 * every request that carries a valid credential. Every request that names its account is counted
 * by outcome for the usage history (in memory).
 */
function authenticateHook(deps: AuthenticateDeps, policy: RoutePolicy): onRequestHookHandler {
  const requirement = policy.auth!;
  const { budget, role: leastRole } = policy;
  // A 'removing-another' route's role is for removing someone else: anyone may leave.
  const leavingOnly = policy.stepUp === 'removing-another'
    ? (request: FastifyRequest, auth: AuthContext) => (request.params as { user_id?: unknown }).user_id === auth.userId
    : () => false;
  /** One request of this credential, by outcome, in the usage history of the organization it acted for (in memory). */
  const count = (orgId: string, auth: AuthContext, outcome: UsageOutcome) => deps.usage.record(orgId, auth.apiKeyId ?? null, outcome);
  /** Why this caller may not make this request (the route's requirement, then its declared least role); undefined: they may. */
  const refusalOf = (request: FastifyRequest, auth: AuthContext, account: UserRow, membership: Membership): AppError | undefined =>
    authorizationFailure(auth, requirement, account.role, membership.role)
      ?? (leastRole !== undefined && !atLeast(membership.role, leastRole) && !leavingOnly(request, auth) ? insufficientRole(leastRole, membership.role) : undefined);
  /** The caller may make this request: counted, and the request carries who it is. */
  const admitted = (request: FastifyRequest, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow, membership: Membership): void => {
    count(membership.org.id, auth, 'ok');
    request.auth = auth;
    request.account = account;
    request.organization = membership;
    done();
  };
  /** The route's requirement and role decide, once; a key's use is spent only on a request it may make. */
  const admit = (request: FastifyRequest, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow, membership: Membership): void => {
    const refused = refusalOf(request, auth, account, membership);
    if (refused) {
      count(membership.org.id, auth, 'forbidden');
      return done(refused);
    }
    // A route that spends the caller's budget spends a use of a key that has a number of them.
    if (auth.usesLimited && budget === 'spend') return spendUse(request, done, auth, account, membership);
    admitted(request, done, auth, account, membership);
  };
  function spendUse(request: FastifyRequest, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow, membership: Membership): void {
    deps.keyUses.spendUses(auth.apiKeyId!, 1).then((spent) => {
      if ('remaining' in spent) return admitted(request, done, auth, account, membership);
      count(membership.org.id, auth, 'rate_limited');
      done(usageExceeded(spent.retryAfterSeconds));
    }, done);
  }
  /**
   * A /organizations/{id} route whose organization the caller is not in (or does not exist): in
   * the order every request meets, the account-route limit is spent, then the route's
   * requirement decides (an API key gets session_required), then 404, as for an organization
   * that does not exist.
   */
  function outsidePathOrganization(request: FastifyRequest, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow): void {
    const refuse = () => {
      count(account.personal_org_id, auth, 'forbidden');
      done(authorizationFailure(auth, requirement, account.role, 'viewer') ?? organizationNotFound());
    };
    if (budget !== 'exempt') return refuse();
    spendAccountRouteLimit(deps.accountRoutes, auth, request.ip, (error) => {
      if (error === undefined) return refuse();
      if (error instanceof AppError && error.code === 'rate_limited') count(account.personal_org_id, auth, 'rate_limited');
      done(error as Error);
    });
  }
  function withMembership(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow, membership: Membership | null, orgId: string): void {
    if (membership === null) {
      // outsidePathOrganization counts the request itself (it may be refused by the limit first).
      if (policy.organization === 'path') return outsidePathOrganization(request, done, auth, account);
      count(account.personal_org_id, auth, 'forbidden');
      return done(new AppError('not_a_member', auth.orgId === undefined
        ? `The caller is not a member of organization ${orgId}.`
        : 'The member who created this API key no longer belongs to its organization.'));
    }
    if (budget === 'exempt') {
      spendAccountRouteLimit(deps.accountRoutes, auth, request.ip, (error) => {
        if (error === undefined) return admit(request, done, auth, account, membership);
        if (error instanceof AppError && error.code === 'rate_limited') count(membership.org.id, auth, 'rate_limited');
        done(error as Error);
      });
      return;
    }
    if (budget === 'caller-free') return admit(request, done, auth, account, membership);
    deps.limiter.consumeThen(budgetKeyOf(membership), limitsFor(membership.org), (error, decision) => {
      if (decision === undefined) return done(error as Error);
      setRateLimitHeaders(reply, decision, deps.clock.now());
      if (!decision.allowed) {
        count(membership.org.id, auth, 'rate_limited');
        return done(rateLimited(decision));
      }
      request.rateLimit = decision;
      admit(request, done, auth, account, membership);
    }, auth.keyBudget && { key: auth.keyBudget });
  }
  function withAccount(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, auth: AuthContext, account: UserRow | undefined): void {
    const refused = accountRefusal(account);
    if (refused !== undefined || account === undefined) {
      // A disabled account's requests show in its usage history; a gone one has none.
      if (account?.disabled) count(auth.orgId ?? account.personal_org_id, auth, 'forbidden');
      return done(refused);
    }
    // Managing one's own account ignores the header: a stale one must never lock anyone out of it.
    const orgId = policy.organization === 'path' ? pathOrganization(request)
      : policy.organization === 'header' ? organizationOf(request, auth, account)
      : (auth.orgId ?? account.personal_org_id);
    if (orgId instanceof AppError && policy.organization === 'path') return outsidePathOrganization(request, done, auth, account);
    if (orgId instanceof AppError) {
      count(account.personal_org_id, auth, 'forbidden');
      return done(orgId);
    }
    const membership = deps.organizations.peek(orgId, auth.userId);
    if (membership !== undefined) return withMembership(request, reply, done, auth, account, membership, orgId);
    deps.organizations.get(orgId, auth.userId).then((loaded) => withMembership(request, reply, done, auth, account, loaded, orgId), done);
  }
  function withCredential(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, auth: AuthContext): void {
    const account = deps.accounts.peek(auth.userId);
    if (account !== undefined) return withAccount(request, reply, done, auth, account);
    deps.accounts.get(auth.userId).then((loaded) => withAccount(request, reply, done, auth, loaded), done);
  }
  /** A refused credential: counted when it names its owner, answered as a 401 challenge. */
  function refusedCredential(done: HookHandlerDoneFunction, error: unknown): void {
    if (error instanceof RefusedCredential) {
      // A refused token names no organization: its user's personal one counts it (when the account is cached; a refusal reads nothing).
      const orgId = error.owner.orgId ?? deps.accounts.peek(error.owner.userId)?.personal_org_id;
      if (orgId !== undefined) deps.usage.record(orgId, error.owner.apiKeyId, 'unauthorized');
    }
    done(asChallenge(error) as Error);
  }
  return settingCommonHeaders(function authenticateRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    setCommonHeaders(request, reply);
    let auth: AuthContext | Promise<AuthContext>;
    try {
      auth = identify(deps, parseBearer(request.headers.authorization));
    } catch (error) {
      return refusedCredential(done, error);
    }
    if (auth instanceof Promise) auth.then((resolved) => withCredential(request, reply, done, resolved), (error: unknown) => refusedCredential(done, error));
    else withCredential(request, reply, done, auth);
  });
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
  app.decorateRequest('organization', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    const policy = routePolicy(route.config);
    if (!policy.auth) return;
    const { budget } = policy;
    prependOnRequest(route, authenticateHook(deps, policy));
    // A route that spends nothing of its caller's can answer no 429 of its own. One that reads
    // Gatehouse-Organization answers a malformed one with 400 invalid_request (found by fuzzing:
    // GET /v1/users/me and /v1/usage answered it undocumented).
    const statuses = [...(policy.organization === 'header' ? [400] : []), 401, 403, ...(policy.organization === 'path' ? [404] : []), ...(budget === 'caller-free' ? [] : [429])];
    addResponses(route, problemResponses(statuses), { security: [{ bearerAuth: [] }] });
  });
}
