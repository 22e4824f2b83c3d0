import { describe, expect, it } from 'vitest';
import { tokenFromMail } from '../../smtp-inbox.js';
import { PASSWORD, signUp, uniqueEmail, type GetContext } from '../context.js';

/**
 * The account's own operations of issue 22: sign out everywhere else, change the sign-in email
 * (confirmed from the link mailed to the new address), export everything, and the scheduled
 * deletion (account.ts drives deleteMe and the restore).
 */
export function accountOperationsJourney(ctx: GetContext): void {
  describe('account operations', () => {
    it('signs out everywhere else, then everywhere', async () => {
      const actor = await signUp(ctx().api, 'logout-scopes');
      const other = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 200);
      await actor.api.call('logout', { token: actor.access, json: { scope: 'others' } }, 204);
      await actor.api.call('getMe', { token: other.body.access_token }, 401);
      await actor.api.call('getMe', { token: actor.access }, 200);
      const bad = await actor.api.callInvalid('logout', { token: actor.access, json: { scope: 'everyone' } }, 400);
      expect(bad.body.code).toBe('validation_failed');
      await actor.api.call('logout', { token: actor.access, json: { scope: 'all' } }, 204);
      await actor.api.call('getMe', { token: actor.access }, 401);
    });

    it('changes the sign-in email once the new address confirms it, signed in as the owner; a taken address is 409, at the request and at the confirmation', async () => {
      const { stack, api } = ctx();
      const actor = await signUp(api, 'change-email');
      const next = uniqueEmail('changed');
      const pending = await actor.api.call('changeEmail', { token: actor.access, json: { email: next, password: actor.password } }, 202);
      expect(pending.body).toEqual({ pending_email: next });
      const unchanged = await actor.api.call('changeEmail', { token: actor.access, json: { email: actor.email, password: actor.password } }, 400);
      expect(unchanged.body.errors[0].code).toBe('unchanged');
      await actor.api.callInvalid('changeEmail', { token: actor.access, json: { email: 'not-an-address', password: actor.password } }, 400);

      const token = tokenFromMail(await stack.inbox.waitFor(next, /Confirm your new email/), 'verify-email');
      await actor.api.call('login', { json: { username: next, password: PASSWORD } }, 401);
      // The link alone (whoever reads a mistyped address's inbox), or with another account's
      // session, is refused and stays unspent: the owner's session confirms it.
      const other = await signUp(api, 'change-email-other');
      const anonymous = await actor.api.call('verifyEmail', { json: { token } }, 401);
      expect(anonymous.body.code).toBe('authentication_required');
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="gatehouse"');
      const foreign = await actor.api.call('verifyEmail', { token: other.access, json: { token } }, 403);
      expect(foreign.body.code).toBe('forbidden');
      await actor.api.call('verifyEmail', { token: actor.access, json: { token } }, 204);
      await actor.api.call('login', { json: { username: next, password: PASSWORD } }, 200);
      await stack.inbox.waitFor(actor.email, /sign-in email address was changed/);

      const taken = await actor.api.call('changeEmail', { token: actor.access, json: { email: other.email, password: actor.password } }, 409);
      expect(taken.body.code).toBe('email_taken');
      const contested = uniqueEmail('contested');
      await actor.api.call('changeEmail', { token: actor.access, json: { email: contested, password: actor.password } }, 202);
      const link = tokenFromMail(await stack.inbox.waitFor(contested, /Confirm your new email/), 'verify-email');
      await other.api.call('register', { json: { email: contested, password: PASSWORD, name: 'First come' } }, 201);
      const raced = await actor.api.call('verifyEmail', { token: actor.access, json: { token: link } }, 409);
      expect(raced.body.code).toBe('email_taken');
    });

    it('exports the account as one document', async () => {
      const actor = await signUp(ctx().api, 'export');
      const exported = await actor.api.call('exportMe', { token: actor.access }, 200);
      expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="gatehouse-export-${actor.id}.json"`);
      expect(exported.body).toMatchObject({ format: 'gatehouse.account-export', version: 1, user: { id: actor.id, email: actor.email } });
      expect(exported.body.security_events.map((e: { type: string }) => e.type)).toEqual(['sign_in', 'account_exported']);
    });
  });
}
