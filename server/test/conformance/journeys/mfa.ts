import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { confirmEmail, NEW_PASSWORD, signUp, type Actor, type GetContext } from '../context.js';

/** An actor who turned TOTP on: its authenticator and its recovery codes (each proof below spends one). */
async function withTotp(actor: Actor) {
  const enrolled = await actor.api.call('enrolTotp', { token: actor.access, json: { password: actor.password } }, 200);
  const totp = OTPAuth.URI.parse(enrolled.body.otpauth_url) as OTPAuth.TOTP;
  const confirmed = await actor.api.call('confirmTotp', { token: actor.access, json: { code: totp.generate() } }, 200);
  return { totp, recovery: [...confirmed.body.recovery_codes] as string[] };
}

/** Second factors: enrolment, login with a code, step-up, new recovery codes, turning it off. */
export function mfaJourney(ctx: GetContext): void {
  describe('second factors', () => {
    it('enrols TOTP, then a login needs the factor and a spent code is refused', async () => {
      const actor = await signUp(ctx().api, 'mfa');
      await confirmEmail(ctx().stack, actor);
      expect((await actor.api.call('getMfa', { token: actor.access }, 200)).body.totp.status).toBe('disabled');
      await actor.api.call('confirmTotp', { token: actor.access, json: { code: '123456' } }, 409);
      const { recovery } = await withTotp(actor);
      await actor.api.call('enrolTotp', { token: actor.access, json: { password: actor.password } }, 409);
      const wrongPassword = await actor.api.call('enrolTotp', { token: actor.access, json: { password: 'not-the-password' } }, 409);
      expect(wrongPassword.body.code).toBe('conflict');
      await actor.api.call('confirmTotp', { token: actor.access, json: { code: '123456' } }, 409);
      expect((await actor.api.call('getMfa', { token: actor.access }, 200)).body).toMatchObject({ totp: { status: 'enabled' }, recovery_codes_remaining: 10 });

      const challenge = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 403);
      expect(challenge.body).toMatchObject({ code: 'mfa_required', methods: ['totp', 'recovery_code'] });
      await actor.api.call('verifyMfa', { json: { mfa_token: challenge.body.mfa_token, recovery_code: 'wrong-wrong' } }, 401);
      const tokens = await actor.api.call('verifyMfa', { json: { mfa_token: challenge.body.mfa_token, recovery_code: recovery[0] } }, 200);
      expect(tokens.body.token_type).toBe('bearer');
      await actor.api.call('verifyMfa', { json: { mfa_token: challenge.body.mfa_token, recovery_code: recovery[1] } }, 401);
      await actor.api.callInvalid('verifyMfa', { json: { code: '123456' } }, 400);
      const neither = await actor.api.call('verifyMfa', { json: { mfa_token: challenge.body.mfa_token } }, 400);
      expect(neither.body.errors[0].code).toBe('required');
    });

    it('a disabled account cannot finish its login', async () => {
      const ctxNow = ctx();
      const admin = await ctxNow.admin();
      const actor = await signUp(ctxNow.api, 'mfa-disabled');
      await confirmEmail(ctxNow.stack, actor);
      const { recovery } = await withTotp(actor);
      const challenge = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 403);
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: actor.id }, json: { disabled: true } }, 200);
      const refused = await actor.api.call('verifyMfa', { json: { mfa_token: challenge.body.mfa_token, recovery_code: recovery[0] } }, 403);
      expect(refused.body.code).toBe('account_disabled');
    });

    it('steps up for sensitive changes, renews recovery codes, and turns TOTP off', async () => {
      const actor = await signUp(ctx().api, 'mfa-step-up');
      await confirmEmail(ctx().stack, actor);
      const { recovery } = await withTotp(actor);
      // The session that confirmed the factor proved it: new keys and codes need nothing more.
      await actor.api.call('createApiKey', { token: actor.access, json: { name: 'with factor' } }, 201);
      const renewed = await actor.api.call('regenerateRecoveryCodes', { token: actor.access }, 200);
      expect(renewed.body.recovery_codes).toHaveLength(10);
      // The old codes died with the renewal.
      const wrong = await actor.api.call('stepUp', { token: actor.access, json: { recovery_code: recovery[3] } }, 400);
      expect(wrong.body.errors[0].code).toBe('incorrect_code');
      const stepped = await actor.api.call('stepUp', { token: actor.access, json: { recovery_code: renewed.body.recovery_codes[1] } }, 200);
      expect(Date.parse(stepped.body.step_up_expires_at)).toBeGreaterThan(Date.now());
      await actor.api.callInvalid('stepUp', { token: actor.access, json: { code: 123456 } }, 400);
      // A second session, through the factor: it may change the password (which signs the first out).
      const login = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 403);
      const other = (await actor.api.call('verifyMfa', { json: { mfa_token: login.body.mfa_token, recovery_code: renewed.body.recovery_codes[0] } }, 200)).body.access_token;
      await actor.api.call('changePassword', { token: other, json: { current_password: actor.password, new_password: NEW_PASSWORD } }, 204);
      await actor.api.call('getMfa', { token: actor.access }, 401);
      await actor.api.call('disableTotp', { token: other, json: { recovery_code: renewed.body.recovery_codes[2], password: NEW_PASSWORD } }, 400);
      await actor.api.call('disableTotp', { token: other, json: { password: NEW_PASSWORD } }, 204);
      await actor.api.call('disableTotp', { token: other, json: { password: NEW_PASSWORD } }, 404);
      await actor.api.call('regenerateRecoveryCodes', { token: other }, 409);
      await actor.api.call('stepUp', { token: other, json: { recovery_code: renewed.body.recovery_codes[3] } }, 409);
    });

    it('answers 403 mfa_required where a session has not proved its factor', async () => {
      const actor = await signUp(ctx().api, 'mfa-required');
      await confirmEmail(ctx().stack, actor);
      const first = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 200);
      const { recovery } = await withTotp(actor);
      // `first` logged in with the password before the factor existed.
      const refused = await actor.api.call('regenerateRecoveryCodes', { token: first.body.access_token }, 403);
      expect(refused.body.code).toBe('mfa_required');
      expect((await actor.api.call('disableTotp', { token: first.body.access_token, json: { password: actor.password } }, 403)).body.code).toBe('mfa_required');
      await actor.api.call('createApiKey', { token: first.body.access_token, json: { name: 'no factor' } }, 403);
      await actor.api.call('disableTotp', { token: first.body.access_token, json: { recovery_code: recovery[0] } }, 204);
    });
  });
}
