import { insufficientRole, ROLE_SCOPES, roleForScope, type OrgRole } from '../../kernel/access-terms/roles.js';
import type { RateDecision } from '../../kernel/limits/limiter.js';
import type { AuthContext, AuthRequirement } from '../../http/route-config.js';
import { REALM } from '../../http/caller.js';
import { isServiceScope } from '../../kernel/access-terms/scopes.js';
import { AppError } from '../../kernel/errors.js';

// The refusals a caller can meet after their credential was accepted, in the words every route
// answers them with.

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
      return new AppError('session_required', 'Account management needs an access token from a login, not an API key or an app\'s token.');
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

/** 429 for a spent budget: whose (the account's or the key's own) and which window. */
export function rateLimited(decision: RateDecision): AppError {
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

/** 403 for an organization the caller does not belong to (named by the header, or a key's whose maker left). */
export function notAMember(auth: AuthContext, orgId: string): AppError {
  return new AppError('not_a_member', auth.orgId === undefined
    ? `The caller is not a member of organization ${orgId}.`
    : 'The member who created this API key no longer belongs to its organization.');
}
