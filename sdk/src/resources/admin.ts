/** Tiers, limits and account status; the caller's account must have the admin role. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function adminResource(call: Call) {
  return {
    /** Newest first: everyone, or by `email` (exact), `q` (part of the address or name), `tier`, `disabled`; page with `cursor` or paginate(). */
    listUsers: (query?: QueryParams<'adminListUsers'>, options?: RequestOptions) => call('adminListUsers', { query }, options),
    /** One user, with every organization they belong to and their role there. */
    getUser: (id: string, options?: RequestOptions) => call('adminGetUser', { params: { id } }, options),
    /** A user's security log as they see it (`me.securityEvents`), newest first; `type` keeps one kind. */
    userSecurityEvents: (id: string, query?: QueryParams<'adminListUserSecurityEvents'>, options?: RequestOptions) =>
      call('adminListUserSecurityEvents', { params: { id }, query }, options),
    updateUser: (id: string, body: RequestBody<'adminUpdateUser'>, options?: RequestOptions) => call('adminUpdateUser', { params: { id }, body }, options),
    getOrganization: (id: string, options?: RequestOptions) => call('adminGetOrganization', { params: { id } }, options),
    /** An organization's tier and limits (the budget its members and keys share). */
    updateOrganization: (id: string, body: RequestBody<'adminUpdateOrganization'>, options?: RequestOptions) => call('adminUpdateOrganization', { params: { id }, body }, options),
  };
}
