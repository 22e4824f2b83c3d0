/** The signed-in account (`/users/me…`): needs a session, not an API key. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody, Success } from '../operations.js';
import type { SessionManager } from '../session.js';
import { identitiesResource } from './identities.js';
import { mfaResource } from './mfa.js';
import { passkeysResource } from './passkeys.js';

export function accountResource(call: Call, sessions: SessionManager) {
  return {
    get: (options?: RequestOptions) => call('getMe', {}, options),
    update: (body: RequestBody<'updateMe'>, options?: RequestOptions) => call('updateMe', { body }, options),
    /**
     * Schedules the deletion of the account and everything it owns (confirm with the password; an
     * account without one sends none, within minutes of signing in), then clears the store. Every
     * session and API key of the account stops working at once; signing in before
     * `deletion_due_at` restores the account (revoked keys stay revoked).
     */
    async delete(body: RequestBody<'deleteMe'> = {}, options?: RequestOptions): Promise<Success<'deleteMe'>> {
      const scheduled = await call('deleteMe', { body }, options);
      await sessions.clear();
      return scheduled;
    },
    /**
     * Asks to change the sign-in address: a link goes to the new one, and following it
     * (auth.verifyEmail with its token) makes the change. Until then the account keeps its address.
     */
    changeEmail: (body: RequestBody<'changeEmail'>, options?: RequestOptions) => call('changeEmail', { body }, options),
    /**
     * A guest (auth.signInAnonymously) becomes an ordinary account with the same id and data:
     * `{ email, password?, name? }`; the address is confirmed by mail. Resolves to the account.
     */
    upgrade: (body: RequestBody<'upgradeGuest'>, options?: RequestOptions) => call('upgradeGuest', { body }, options),
    /** Everything the account holds, as one JSON document (format in docs/guides/account.md, "Your data"). */
    export: (options?: RequestOptions) => call('exportMe', {}, options),
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
