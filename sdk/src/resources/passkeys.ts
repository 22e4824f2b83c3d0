/**
 * The signed-in account's passkeys (`/users/me/passkeys…`). Adding one is a ceremony:
 * `registrationOptions({ password })` → `navigator.credentials.create()` in the browser (or the platform's
 * passkey API in an app) → `add()` with its answer as JSON.
 */
import type { Call, RequestOptions } from '../core.js';
import type { RequestBody } from '../operations.js';

export function passkeysResource(call: Call) {
  return {
    /** `{ password }` → `{ challenge_id, options }`; also needs a recent second factor on an account that has one. */
    registrationOptions: (body: RequestBody<'passkeyRegistrationOptions'>, options?: RequestOptions) => call('passkeyRegistrationOptions', { body }, options),
    /** `{ challenge_id, credential: credential.toJSON(), name? }`. */
    add: (body: RequestBody<'addPasskey'>, options?: RequestOptions) => call('addPasskey', { body }, options),
    list: (options?: RequestOptions) => call('listPasskeys', {}, options),
    rename: (id: string, body: RequestBody<'renamePasskey'>, options?: RequestOptions) => call('renamePasskey', { params: { id }, body }, options),
    /** Needs a recent second factor on an account that has one. */
    remove: (id: string, options?: RequestOptions) => call('removePasskey', { params: { id } }, options),
  };
}
