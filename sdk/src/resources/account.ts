/** The signed-in account (`/users/me…`): needs a session, not an API key. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';
import type { SessionManager } from '../session.js';
import { identitiesResource } from './identities.js';
import { mfaResource } from './mfa.js';
import { passkeysResource } from './passkeys.js';

export function accountResource(call: Call, sessions: SessionManager) {
  return {
    get: (options?: RequestOptions) => call('getMe', {}, options),
    update: (body: RequestBody<'updateMe'>, options?: RequestOptions) => call('updateMe', { body }, options),
    /** Deletes the account and everything it owns (confirm with the password), then clears the store. */
    async delete(body: RequestBody<'deleteMe'>, options?: RequestOptions): Promise<void> {
      await call('deleteMe', { body }, options);
      await sessions.clear();
    },
    /** Other sessions are signed out; this one stays. */
    changePassword: (body: RequestBody<'changePassword'>, options?: RequestOptions) => call('changePassword', { body }, options),
    resendVerification: (options?: RequestOptions) => call('resendVerification', {}, options),
    /** Newest first; page with `cursor` or with paginate(). */
    securityEvents: (query?: QueryParams<'listSecurityEvents'>, options?: RequestOptions) => call('listSecurityEvents', { query }, options),
    /** Second factors: TOTP, recovery codes, step-up. */
    mfa: mfaResource(call),
    /** Passkeys: add (a ceremony), list, rename, remove. */
    passkeys: passkeysResource(call),
    /** Linked sign-in providers: list, link (a provider sign-in's code), unlink. */
    identities: identitiesResource(call),
  };
}
