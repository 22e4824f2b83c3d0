/**
 * Sign-in providers linked to the signed-in account (`/users/me/identities…`). Linking is a
 * provider sign-in whose code is redeemed here instead of at auth.completeProviderSignIn.
 */
import type { Call, RequestOptions } from '../core.js';

export function identitiesResource(call: Call) {
  return {
    list: (options?: RequestOptions) => call('listIdentities', {}, options),
    /**
     * `{ code, codeVerifier }` from auth.providerSignIn() and the redirect, and the `password`
     * (required when the account has one). Needs a recent second factor on an account that has one.
     */
    link: (input: { code: string; codeVerifier: string; password?: string }, options?: RequestOptions) =>
      call('linkIdentity', { body: { code: input.code, code_verifier: input.codeVerifier, ...(input.password === undefined ? {} : { password: input.password }) } }, options),
    /** Refused (409) when it is the account's only way in. Needs a recent second factor on an account that has one. */
    unlink: (id: string, options?: RequestOptions) => call('unlinkIdentity', { params: { id } }, options),
  };
}
