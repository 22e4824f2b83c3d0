import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../kernel/clock.js';
import type { AccountCache, UserRow } from '../../identity/index.js';
import type { Membership, OrganizationCache } from '../organizations/organization-cache.js';
import { atLeast, insufficientRole } from '../../kernel/access-terms/roles.js';
import type { RateDecision, RateLimiter } from '../../kernel/limits/limiter.js';
import { limitsFor } from '../../kernel/access-terms/tiers.js';
import type { AuthContext } from '../../http/route-config.js';
import type { RoutePolicy } from '../../http/route-policy.js';
import { parseBearer } from '../../http/caller.js';
import { RefusedCredential } from '../../kernel/access-terms/credentials.js';
import { AppError } from '../../kernel/errors.js';
import { awaited, runEager, type Eventually, type Flow } from '../../kernel/eager.js';
import { organizationNotFound } from '../organizations/caller-role.js';
import { budgetKeyOf } from '../usage/budget-key.js';
import type { UsageCounter, UsageOutcome } from '../usage/usage-counter.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { accountRouteRefusal, type AccountRouteLimit } from './account-route-limit.js';
import { accountRefusal, asChallenge, identify, type CredentialDeps } from './credential.js';
import { actingOrganization } from './acting-organization.js';
import { authorizationFailure, notAMember, rateLimited, usageExceeded } from './refusals.js';
import { resourceRefusal, withResourceMetadata } from './resource-binding.js';

export interface CallerDeps extends CredentialDeps {
  accounts: AccountCache;
  /** The organization a request acts for and the caller's role in it. */
  organizations: OrganizationCache;
  limiter: RateLimiter;
  /** The abuse limit of the routes that spend no budget. */
  accountRoutes: AccountRouteLimit;
  /** Spends uses of a key that has a number of them. */
  keyUses: Pick<ApiKeysService, 'spendUses'>;
  /** Counts each authenticated request by outcome for the usage history (in memory; written in batches). */
  usage: Pick<UsageCounter, 'record'>;
  clock: Clock;
  /** Where the MCP endpoint's protected resource metadata is (its 401s name it). */
  mcpResourceMetadataUrl: string;
}

/** Who is calling, as every route reads it: set on the request by the authenticate step. */
export interface Caller {
  auth: AuthContext;
  account: UserRow;
  /** The organization the request acts for and the caller's role in it. */
  membership: Membership;
  /** The budget after this request was counted; null on a route that spends none. */
  rateLimit: RateDecision | null;
}

/**
 * What resolveCaller decided: the caller, or the refusal to answer (a problem with its headers),
 * with the budget as it stands when the request was counted against it before being refused.
 */
export type Resolution = { caller: Caller } | { refusal: AppError; rateLimit: RateDecision | null };

/** A resolution and the one line of usage history it makes (none when no account is known). */
type Verdict = Resolution & { counted: { orgId: string; keyId: string | null; outcome: UsageOutcome } | null };

/**
 * A refusal and its line of usage history. Module-level, not a closure per request: the TypeScript
 * loader names every function made at run time (esbuild's keepNames), which cost 1 µs a request.
 */
function refuse(orgId: string, keyId: string | null, outcome: UsageOutcome, refusal: AppError, rateLimit: RateDecision | null = null): Verdict {
  return { refusal, rateLimit, counted: { orgId, keyId, outcome } };
}

/**
 * The caller of a protected route, decided in one pass in the order every request meets:
 * credential → account → acting organization → budget (the account's and the key's own, or on a
 * budget-exempt route its abuse limit) → the route's requirement and least role → a use of a key
 * that has a number of them; then one usage record. The budget comes before the requirement: it
 * counts every request that carries a valid credential. A refusal is an answer, never a throw; a
 * store that cannot decide (a database or Redis failure) throws or rejects.
 *
 * Every answer the pass waits for comes from a cache nearly always, so it is written as a flow that
 * goes on at once while answers are at hand: resolveCaller answers without a promise then, and
 * with one from the first read or round trip on (ADR 0002 has the figures).
 */
export function createCallerResolver(deps: CallerDeps) {
  function* decide(request: FastifyRequest, policy: RoutePolicy): Flow<Verdict> {
    let auth: AuthContext;
    try {
      auth = yield* identify(deps, parseBearer(request.headers.authorization));
    } catch (error) {
      return yield* refusedCredential(error);
    }
    const keyId = auth.apiKeyId ?? null;

    const account = yield* awaited(deps.accounts.get(auth.userId));
    const refusedAccount = accountRefusal(account);
    if (refusedAccount !== undefined || account === undefined) {
      // A disabled account's requests show in its usage history; a gone one has none.
      const counted = account?.disabled ? { orgId: auth.orgId ?? account.personal_org_id, keyId, outcome: 'forbidden' as const } : null;
      return { refusal: refusedAccount!, rateLimit: null, counted };
    }
    const misdirected = resourceRefusal(auth, policy.resource);
    if (misdirected) return refuse(auth.orgId ?? account.personal_org_id, keyId, 'unauthorized', misdirected);

    const orgId = actingOrganization(policy, request, auth, account);
    const membership = typeof orgId === 'string' ? yield* awaited(deps.organizations.get(orgId, auth.userId)) : null;
    if (membership === null) {
      if (policy.organization === 'path') return yield* outsidePathOrganization(request, policy, auth, account);
      return refuse(account.personal_org_id, keyId, 'forbidden', orgId instanceof AppError ? orgId : notAMember(auth, orgId));
    }
    const org = membership.org.id;

    let rateLimit: RateDecision | null = null;
    if (policy.budget === 'exempt') {
      const limited = yield* accountRouteRefusal(deps.accountRoutes, auth, request.ip);
      if (limited) return refuse(org, keyId, 'rate_limited', limited);
    } else if (policy.budget === 'spend') {
      rateLimit = yield* awaited(deps.limiter.consume(budgetKeyOf(membership), limitsFor(membership.org), auth.keyBudget && { key: auth.keyBudget }));
      if (!rateLimit.allowed) return refuse(org, keyId, 'rate_limited', rateLimited(rateLimit), rateLimit);
    }

    const forbidden = authorizationFailure(auth, policy.auth!, account.role, membership.role) ?? roleRefusal(request, policy, auth, membership) ?? guestRefusal(policy, account);
    if (forbidden) return refuse(org, keyId, 'forbidden', forbidden, rateLimit);

    // A route that spends the caller's budget spends a use of a key that has a number of them.
    if (auth.usesLimited && policy.budget === 'spend') {
      const spent = yield* awaited(deps.keyUses.spendUses(auth.apiKeyId!, 1));
      if (!('remaining' in spent)) return refuse(org, keyId, 'rate_limited', usageExceeded(spent.retryAfterSeconds), rateLimit);
    }
    return { caller: { auth, account, membership, rateLimit }, counted: { orgId: org, keyId, outcome: 'ok' } };
  }

  /** A guest on a route that is not for guests (RoutePolicy.guests): it upgrades first. */
  function guestRefusal(policy: RoutePolicy, account: UserRow): AppError | undefined {
    if (policy.guests === 'allowed' || account.is_anonymous !== 1) return undefined;
    return new AppError('guest_not_allowed', 'A guest account cannot do this: add an email address first (POST /v1/users/me/upgrade).');
  }

  /** The route's declared least role; a 'removing-another' route's is for removing someone else: anyone may leave. */
  function roleRefusal(request: FastifyRequest, policy: RoutePolicy, auth: AuthContext, membership: Membership): AppError | undefined {
    if (policy.role === undefined || atLeast(membership.role, policy.role)) return undefined;
    if (policy.stepUp === 'removing-another' && (request.params as { user_id?: unknown }).user_id === auth.userId) return undefined;
    return insufficientRole(policy.role, membership.role);
  }

  /**
   * A /organizations/{id} route whose organization the caller is not in (or does not exist): in
   * the order every request meets, the account-route limit is spent, then the route's requirement
   * decides (an API key gets session_required), then 404, as for an organization that does not
   * exist. Counted in the caller's personal organization.
   */
  function* outsidePathOrganization(
    request: FastifyRequest, policy: RoutePolicy, auth: AuthContext, account: UserRow,
  ): Flow<Verdict> {
    const keyId = auth.apiKeyId ?? null;
    if (policy.budget === 'exempt') {
      const limited = yield* accountRouteRefusal(deps.accountRoutes, auth, request.ip);
      if (limited) return refuse(account.personal_org_id, keyId, 'rate_limited', limited);
    }
    return refuse(account.personal_org_id, keyId, 'forbidden', authorizationFailure(auth, policy.auth!, account.role, 'viewer') ?? organizationNotFound());
  }

  /** A refused credential: counted when it names its owner (a token's in its user's personal organization), answered as a 401 challenge. */
  function* refusedCredential(error: unknown): Flow<Verdict> {
    const refusal = asChallenge(error);
    if (!(refusal instanceof AppError)) throw error;
    if (!(error instanceof RefusedCredential)) return { refusal, rateLimit: null, counted: null };
    const orgId = error.owner.orgId ?? (yield* awaited(deps.accounts.get(error.owner.userId)))?.personal_org_id;
    return { refusal, rateLimit: null, counted: orgId === undefined ? null : { orgId, keyId: error.owner.apiKeyId, outcome: 'unauthorized' } };
  }

  function* resolve(request: FastifyRequest, policy: RoutePolicy): Flow<Resolution> {
    const verdict = yield* decide(request, policy);
    if (verdict.counted) deps.usage.record(verdict.counted.orgId, verdict.counted.keyId, verdict.counted.outcome);
    if (policy.resource === 'mcp' && 'refusal' in verdict) return { ...verdict, refusal: withResourceMetadata(verdict.refusal, deps.mcpResourceMetadataUrl) };
    return verdict;
  }

  /** The caller or the refusal: at once when every answer was at hand, else as a promise. */
  return function resolveCaller(request: FastifyRequest, policy: RoutePolicy): Eventually<Resolution> {
    return runEager(resolve(request, policy));
  };
}

export type ResolveCaller = ReturnType<typeof createCallerResolver>;
