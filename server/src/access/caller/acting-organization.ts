import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../../identity/index.js';
import type { AuthContext } from '../../http/route-config.js';
import type { RoutePolicy } from '../../http/route-policy.js';
import { isId } from '../../kernel/ids.js';
import { AppError } from '../../kernel/errors.js';
import { organizationNotFound } from '../organizations/caller-role.js';

/** The header a token names the organization it acts for with (absent: the user's personal one). */
export const ORGANIZATION_HEADER = 'gatehouse-organization';

/**
 * The one place that decides which organization a request acts for, for every route, from where
 * its declaration says (`config.organization`):
 * - 'path' (the /organizations/{id} routes): the path's id; a malformed one is a missing one (404);
 * - 'header': an API key's own organization (a header naming another is refused), or for an access
 *   token the one Gatehouse-Organization names, by default the user's personal one;
 * - 'own' (managing one's own account): an API key's own, or the personal one. The header is
 *   ignored: a stale one must never lock anyone out of their account.
 * Whether the caller belongs to it is the membership lookup's to say.
 */
export function actingOrganization(policy: Pick<RoutePolicy, 'organization'>, request: FastifyRequest, auth: AuthContext, account: UserRow): string | AppError {
  if (policy.organization === 'path') {
    const { id } = request.params as { id?: unknown };
    return typeof id === 'string' && isId('organization', id) ? id : organizationNotFound();
  }
  if (policy.organization === 'own') return auth.orgId ?? account.personal_org_id;
  const named = request.headers[ORGANIZATION_HEADER];
  if (auth.orgId !== undefined) {
    if (named !== undefined && named !== auth.orgId) return new AppError('not_a_member', auth.credential === 'oauth_token' ? 'An app\'s token acts only for the organization its grant names; leave out Gatehouse-Organization or name that one.' : 'An API key acts only for its own organization; leave out Gatehouse-Organization or name that one.');
    return auth.orgId;
  }
  if (named === undefined) return account.personal_org_id;
  if (typeof named !== 'string' || !isId('organization', named)) return new AppError('invalid_request', 'Gatehouse-Organization must be an organization id (org_…).');
  return named;
}
