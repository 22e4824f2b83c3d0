/** Tiers, limits and account status; the caller's account must have the admin role. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function adminResource(call: Call) {
  return {
    listUsers: (query?: QueryParams<'adminListUsers'>, options?: RequestOptions) => call('adminListUsers', { query }, options),
    updateUser: (id: string, body: RequestBody<'adminUpdateUser'>, options?: RequestOptions) => call('adminUpdateUser', { params: { id }, body }, options),
    getOrganization: (id: string, options?: RequestOptions) => call('adminGetOrganization', { params: { id } }, options),
    /** An organization's tier and limits (the budget its members and keys share). */
    updateOrganization: (id: string, body: RequestBody<'adminUpdateOrganization'>, options?: RequestOptions) => call('adminUpdateOrganization', { params: { id }, body }, options),
  };
}
