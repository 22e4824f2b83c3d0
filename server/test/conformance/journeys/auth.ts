import { describe, expect, it } from 'vitest';
import { tokenFromMail } from '../../smtp-inbox.js';
import { NEW_PASSWORD, PASSWORD, randomIp, signUp, uniqueEmail, type GetContext } from '../context.js';
import { SERVER_LIMITS } from '../stack.js';

/** Register, log in (JSON and OAuth2 form), refresh, log out, verify the email, reset the password. */
export function authJourney(ctx: GetContext): void {
  describe('auth', () => {
    it('registers once per address, logs in and refreshes with JSON and with OAuth2 forms', async () => {
      const api = ctx().api.from(randomIp());
      const email = uniqueEmail('auth');
      const user = await api.call('register', { json: { email, password: PASSWORD, name: 'Ada' } }, 201);
      expect(user.headers.get('location')).toBe('/v1/users/me');
      const taken = await api.call('register', { json: { email: email.toUpperCase(), password: PASSWORD, name: 'Ada' } }, 409);
      expect(taken.body.code).toBe('email_taken');

      const json = await api.call('login', { json: { username: email, password: PASSWORD } }, 200);
      expect(json.body.token_type).toBe('bearer');
      const form = await api.call('login', { form: { grant_type: 'password', username: email, password: PASSWORD } }, 200);
      const refreshed = await api.call('refresh', { json: { refresh_token: json.body.refresh_token } }, 200);
      expect(refreshed.body.refresh_token).not.toBe(json.body.refresh_token);
      await api.call('refresh', { form: { grant_type: 'refresh_token', refresh_token: form.body.refresh_token } }, 200);

      const wrong = await api.call('login', { json: { username: email, password: 'not-the-password-1' } }, 401);
      expect(wrong.body.code).toBe('invalid_credentials');
      const unknown = await api.call('refresh', { json: { refresh_token: 'gthr_not-a-real-token' } }, 401);
      expect(unknown.body.code).toBe('invalid_token');
    });

    it('answers bad input with problem+json: 400, 413, 415', async () => {
      const api = ctx().api.from(randomIp());
      const invalid = await api.callInvalid('register', { json: { email: 'not-an-email', password: PASSWORD, name: 'Ada' } }, 400);
      expect(invalid.body.code).toBe('validation_failed');
      expect(invalid.body.errors.map((e: { field: string }) => e.field)).toContain('/email');
      // The document cannot say "not a common password"; the server's 400 must still be a documented answer.
      const common = await api.call('register', { json: { email: uniqueEmail('weak'), password: 'password123', name: 'Ada' } }, 400);
      expect(common.body.code).toBe('validation_failed');
      const form = await api.callInvalid('login', { form: { grant_type: 'password', username: 'ada@example.com' } }, 400);
      expect(form.body.code).toBe('validation_failed');
      const text = await api.callInvalid('register', { raw: { contentType: 'text/plain', body: 'hello' } }, 415);
      expect(text.body.code).toBe('unsupported_media_type');
      const big = await api.callInvalid('register', { json: { email: 'big@example.com', password: PASSWORD, name: 'x'.repeat(1_100_000) } }, 413);
      expect(big.body.code).toBe('payload_too_large');
    });

    it(`throttles failed logins per email: 429 too_many_attempts after ${SERVER_LIMITS.loginMaxFailures}`, async () => {
      const actor = await signUp(ctx().api, 'throttle');
      for (let i = 0; i < SERVER_LIMITS.loginMaxFailures; i++) {
        await actor.api.call('login', { json: { username: actor.email, password: `wrong-${i}-password` } }, 401);
      }
      const throttled = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 429);
      expect(throttled.body.code).toBe('too_many_attempts');
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('logs out: the session ends and its tokens stop working', async () => {
      const actor = await signUp(ctx().api, 'logout');
      await actor.api.call('logout', { token: actor.access, json: {} }, 204);
      const after = await actor.api.call('getMe', { token: actor.access }, 401);
      expect(after.headers.get('www-authenticate')).toMatch(/^Bearer /);
      await actor.api.call('refresh', { json: { refresh_token: actor.refresh } }, 401);
    });

    it('verifies the email with the mailed token, once; resends only while unverified', async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'verify');
      await stack.inbox.waitFor(actor.email, /Confirm your email/);
      await actor.api.call('resendVerification', { token: actor.access }, 202);
      const token = tokenFromMail(await stack.inbox.waitFor(actor.email, /Confirm your email/, 2), 'verify-email');
      await actor.api.call('verifyEmail', { json: { token } }, 204);
      const again = await actor.api.call('verifyEmail', { json: { token } }, 401);
      expect(again.body.code).toBe('invalid_token');
      expect((await actor.api.call('getMe', { token: actor.access }, 200)).body.email_verified).toBe(true);
      const conflict = await actor.api.call('resendVerification', { token: actor.access }, 409);
      expect(conflict.body.code).toBe('conflict');
      await actor.api.callInvalid('verifyEmail', { json: { token: '' } }, 400);
    });

    it('resets a forgotten password with the mailed token, once, and signs every session out', async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'reset');
      await actor.api.call('forgotPassword', { json: { email: actor.email } }, 202);
      await actor.api.call('forgotPassword', { json: { email: uniqueEmail('nobody') } }, 202);
      const token = tokenFromMail(await stack.inbox.waitFor(actor.email, /Reset your password/), 'reset-password');
      await actor.api.call('resetPassword', { json: { token, password: NEW_PASSWORD } }, 204);
      await actor.api.call('resetPassword', { json: { token, password: NEW_PASSWORD } }, 401);
      await actor.api.call('getMe', { token: actor.access }, 401);
      await actor.api.call('login', { json: { username: actor.email, password: NEW_PASSWORD } }, 200);
      await actor.api.callInvalid('forgotPassword', { json: { email: 'nope' } }, 400);
      await actor.api.callInvalid('resetPassword', { json: { token } }, 400);
    });
  });
}
