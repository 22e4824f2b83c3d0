/** The signed-in account's second factors (`/users/me/mfa…`): TOTP, recovery codes, step-up. */
import type { Call, RequestOptions } from '../core.js';
import type { RequestBody } from '../operations.js';

export function mfaResource(call: Call) {
  return {
    /** TOTP status, recovery codes left, and until when this session may make sensitive changes. */
    get: (options?: RequestOptions) => call('getMfa', {}, options),
    /** Needs the password. A new secret (`secret`, `otpauth_url`, `qr_svg`); TOTP is off until confirmTotp() gets a first code. */
    enrolTotp: (body: RequestBody<'enrolTotp'>, options?: RequestOptions) => call('enrolTotp', { body }, options),
    /** Turns TOTP on; the answer holds the ten recovery codes, shown this once. */
    confirmTotp: (body: RequestBody<'confirmTotp'>, options?: RequestOptions) => call('confirmTotp', { body }, options),
    /** `{ code }`, `{ recovery_code }`, or `{ password }` within the step-up window. */
    disableTotp: (body: RequestBody<'disableTotp'>, options?: RequestOptions) => call('disableTotp', { body }, options),
    /** Ten new recovery codes; the old ones stop working. Needs a recent factor (stepUp()). */
    regenerateRecoveryCodes: (options?: RequestOptions) => call('regenerateRecoveryCodes', {}, options),
    /** Proves the factor in this session: after it, calls that answered 403 `mfa_required` go through. */
    stepUp: (body: RequestBody<'stepUp'>, options?: RequestOptions) => call('stepUp', { body }, options),
  };
}
