import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { tokenFromMail } from '../../smtp-inbox.js';
import { confirmEmail, randomIp, signUp, uniqueEmail, type GetContext } from '../context.js';

const codeOf = (text: string) => /sign-in code is (\d{6})\./.exec(text)![1]!;

/** Signing in by mail: the code, the link, the second factor's step, and bad bodies. */
export function passwordlessJourney(ctx: GetContext): void {
  describe('passwordless sign-in', () => {
    it('mails a code and a link; the code signs a new address in, the link works once', async () => {
      const { api, stack } = ctx();
      const from = api.from(randomIp());
      const email = uniqueEmail('passwordless');
      await from.call('startPasswordless', { json: { email } }, 202);
      const first = await stack.inbox.waitFor(email, /sign-in code/);
      const tokens = await from.call('verifyPasswordless', { json: { email, code: codeOf(first.text) } }, 200);
      expect(tokens.body.token_type).toBe('bearer');

      await from.call('startPasswordless', { json: { email, create_account: false } }, 202);
      const token = tokenFromMail(await stack.inbox.waitFor(email, /sign-in code/, 2), 'sign-in');
      await from.call('verifyPasswordless', { json: { token } }, 200);
      const spent = await from.call('verifyPasswordless', { json: { token } }, 401);
      expect(spent.body.code).toBe('invalid_token');
      const wrong = await from.call('verifyPasswordless', { json: { email, code: '000000' } }, 401);
      expect(wrong.body.code).toBe('invalid_credentials');
    });

    it('asks an account with a second factor for it', async () => {
      const { api, stack } = ctx();
      const actor = await signUp(api, 'passwordless-mfa');
      await confirmEmail(stack, actor);
      const enrolled = await actor.api.call('enrolTotp', { token: actor.access, json: { password: actor.password } }, 200);
      const totp = OTPAuth.URI.parse(enrolled.body.otpauth_url) as OTPAuth.TOTP;
      await actor.api.call('confirmTotp', { token: actor.access, json: { code: totp.generate() } }, 200);
      await actor.api.call('startPasswordless', { json: { email: actor.email } }, 202);
      const mail = await stack.inbox.waitFor(actor.email, /sign-in code/);
      const challenge = await actor.api.call('verifyPasswordless', { json: { email: actor.email, code: codeOf(mail.text) } }, 403);
      expect(challenge.body.code).toBe('mfa_required');
    });

    it('answers a body that is neither a code nor a link with 400', async () => {
      const api = ctx().api.from(randomIp());
      const both = await api.call('verifyPasswordless', { json: { token: 'gths_x', code: '123456' } }, 400);
      expect(both.body.code).toBe('validation_failed');
      await api.callInvalid('verifyPasswordless', { json: { email: 'ada@example.com', code: '12345' } }, 400);
      await api.callInvalid('startPasswordless', { json: { email: 'not an address' } }, 400);
    });
  });
}
