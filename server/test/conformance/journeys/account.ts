import { describe, expect, it } from 'vitest';
import { NEW_PASSWORD, signUp, type GetContext } from '../context.js';

/** The signed-in user: profile, password, sessions, security log, and deleting the account. */
export function accountJourney(ctx: GetContext): void {
  describe('account', () => {
    it('reads and changes the profile', async () => {
      const actor = await signUp(ctx().api, 'profile');
      const me = await actor.api.call('getMe', { token: actor.access }, 200);
      expect(me.body).toMatchObject({ id: actor.id, email: actor.email, tier: 'free', email_verified: false });
      const renamed = await actor.api.call('updateMe', { token: actor.access, json: { name: 'Grace' } }, 200);
      expect(renamed.body.name).toBe('Grace');
      const blank = await actor.api.call('updateMe', { token: actor.access, json: { name: '   ' } }, 400);
      expect(blank.body.code).toBe('validation_failed');
      await actor.api.callInvalid('updateMe', { token: actor.access, json: { nickname: 'x' } }, 400);
    });

    it('lists sessions page by page and revokes one', async () => {
      const first = await signUp(ctx().api, 'sessions');
      const second = await first.api.call('login', { json: { username: first.email, password: first.password } }, 200);
      const page1 = await first.api.call('listSessions', { token: first.access, query: { limit: 1 } }, 200);
      expect(page1.body.data).toHaveLength(1);
      expect(page1.body.next_cursor).toEqual(expect.any(String));
      const page2 = await first.api.call('listSessions', { token: first.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);
      const all = [...page1.body.data, ...page2.body.data];
      expect(all.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      const other = all.find((s: { current: boolean }) => !s.current);
      // Without ?limit the default page (20) holds both.
      expect((await first.api.call('listSessions', { token: first.access }, 200)).body.data).toHaveLength(2);

      await first.api.call('revokeSession', { token: first.access, path: { id: other.id } }, 204);
      await first.api.call('getMe', { token: second.body.access_token }, 401);
      await first.api.call('revokeSession', { token: first.access, path: { id: other.id } }, 404);
      const badCursor = await first.api.call('listSessions', { token: first.access, query: { cursor: 'not-a-cursor' } }, 400);
      expect(badCursor.body.code).toBe('validation_failed');
      await first.api.callInvalid('listSessions', { token: first.access, query: { limit: 0 } }, 400);
    });

    it('lists the security log newest first, page by page', async () => {
      const actor = await signUp(ctx().api, 'seclog');
      await actor.api.call('login', { json: { username: actor.email, password: 'wrong-password-123' } }, 401);
      const page1 = await actor.api.call('listSecurityEvents', { token: actor.access, query: { limit: 1 } }, 200);
      expect(page1.body.data[0].type).toBe('sign_in_failed');
      const page2 = await actor.api.call('listSecurityEvents', { token: actor.access, query: { cursor: page1.body.next_cursor } }, 200);
      expect(page2.body.data.map((e: { type: string }) => e.type)).toContain('sign_in');
      await actor.api.callInvalid('listSecurityEvents', { token: actor.access, query: { limit: 101 } }, 400);
    });

    it('changes the password, signing the other sessions out', async () => {
      const actor = await signUp(ctx().api, 'password');
      const other = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 200);
      const wrong = await actor.api.call('changePassword', { token: actor.access, json: { current_password: 'not-it-at-all', new_password: NEW_PASSWORD } }, 400);
      expect(wrong.body.errors[0].code).toBe('incorrect_password');
      await actor.api.call('changePassword', { token: actor.access, json: { current_password: actor.password, new_password: NEW_PASSWORD } }, 204);
      await actor.api.call('getMe', { token: other.body.access_token }, 401);
      await actor.api.call('getMe', { token: actor.access }, 200);
      await actor.api.callInvalid('changePassword', { token: actor.access, json: { new_password: NEW_PASSWORD } }, 400);
    });

    it('deletes the account with its password: its credentials stop working, and a sign-in during the grace restores it', async () => {
      const actor = await signUp(ctx().api, 'delete');
      const wrong = await actor.api.call('deleteMe', { token: actor.access, json: { password: 'not-the-password' } }, 400);
      expect(wrong.body.errors[0].code).toBe('incorrect_password');
      const scheduled = await actor.api.call('deleteMe', { token: actor.access, json: { password: actor.password } }, 202);
      expect(Date.parse(scheduled.body.deletion_due_at)).toBeGreaterThan(Date.now());
      await actor.api.call('getMe', { token: actor.access }, 401);
      const back = await actor.api.call('login', { json: { username: actor.email, password: actor.password } }, 200);
      const log = await actor.api.call('listSecurityEvents', { token: back.body.access_token, query: { limit: 2 } }, 200);
      expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(['sign_in', 'account_restored']);
    });
  });
}
