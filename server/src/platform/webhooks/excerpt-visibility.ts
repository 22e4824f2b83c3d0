import type { AuthContext } from '../../kernel/access-terms/credentials.js';
import { atLeast, type OrgRole } from '../../kernel/access-terms/roles.js';

/**
 * Who reads what receivers answered: those who operate the organization's endpoints, an admin
 * (or owner) with a credential that may change them (`webhooks:write`). With
 * WEBHOOK_ALLOW_PRIVATE an endpoint can point at an internal service, and its answer's start is
 * then a view into that network (docs/guides/webhooks.md): a viewer, a member, or a read-only key
 * sees each attempt's status and timing, never the excerpt.
 */
export function maySeeExcerpts(auth: Pick<AuthContext, 'scopes'>, role: OrgRole): boolean {
  return atLeast(role, 'admin') && auth.scopes.has('webhooks:write');
}

/** The deliveries with every attempt's `response_excerpt` null, as for an attempt that got no answer. */
export function withoutExcerpts<D extends { attempts: Array<{ response_excerpt: string | null }> }>(deliveries: D[]): D[] {
  return deliveries.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a, response_excerpt: null })) }));
}
