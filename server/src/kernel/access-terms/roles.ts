import { AppError } from '../errors.js';
import { USER_SCOPES, type UserScope } from './scopes.js';

/**
 * Roles in an organization, weakest first. Viewers read; members create and use resources;
 * admins also manage members, API keys and webhooks; owners also delete the organization and
 * make other owners. An organization always keeps at least one owner.
 */
export const ORG_ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export function isOrgRole(value: string): value is OrgRole {
  return (ORG_ROLES as readonly string[]).includes(value);
}

/** Whether `role` is `least` or stronger. */
export function atLeast(role: OrgRole, least: OrgRole): boolean {
  return ORG_ROLES.indexOf(role) >= ORG_ROLES.indexOf(least);
}

const READS: readonly UserScope[] = USER_SCOPES.filter((scope) => scope.endsWith(':read'));
const MEMBER_WRITES: readonly UserScope[] = ['agents:write', 'chats:write'];

/**
 * The platform scopes a role allows. A credential acts with its own scopes narrowed to these:
 * an access token of a viewer cannot write, and an API key never does more than the member who
 * created it may do now (a demoted creator narrows their keys at once).
 */
export const ROLE_SCOPES: Record<OrgRole, ReadonlySet<string>> = {
  viewer: new Set(READS),
  member: new Set([...READS, ...MEMBER_WRITES]),
  admin: new Set(USER_SCOPES),
  owner: new Set(USER_SCOPES),
};

/** The least role that allows a platform scope (for the 403's `required_role`). */
export function roleForScope(scope: string): OrgRole {
  return ORG_ROLES.find((role) => ROLE_SCOPES[role].has(scope)) ?? 'owner';
}

/** 403 for a member whose role is too weak: the one shape every refusal by role has (`what` names the operation). */
export function insufficientRole(required: OrgRole, actual: OrgRole, what = 'This'): AppError {
  return new AppError('insufficient_role', `${what} needs the ${required} role or higher in the organization; the caller is ${actual === 'admin' ? 'an' : 'a'} ${actual}.`, { required_role: required, role: actual });
}

/**
 * The roles a member with `role` may invite to (null: not a member): admins invite up to admin,
 * owners also owners. An invitation speaks for its sender until it is used, so it is held to
 * this when it is sent, when its sender is demoted or removed, and when it is accepted.
 */
export function mayInvite(role: OrgRole | null | undefined, invited: OrgRole): boolean {
  if (role === 'owner') return true;
  return role === 'admin' && invited !== 'owner';
}
