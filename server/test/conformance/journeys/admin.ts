import { describe, expect, it } from 'vitest';
import { signUp, type GetContext } from '../context.js';

/** The admin API: find users, one user with their organizations and security log, change tier and limits, disable an account. */
export function adminJourney(ctx: GetContext): void {
  describe('admin', () => {
    it('finds a user by email, changes tier and limits, disables and re-enables the account', async () => {
      const admin = await ctx().admin();
      const user = await signUp(ctx().api, 'managed');
      const found = await admin.api.call('adminListUsers', { token: admin.access, query: { email: user.email.toUpperCase() } }, 200);
      expect(found.body.data.map((u: { id: string }) => u.id)).toEqual([user.id]);
      const page1 = await admin.api.call('adminListUsers', { token: admin.access, query: { limit: 1 } }, 200);
      await admin.api.call('adminListUsers', { token: admin.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);

      const hobby = await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { tier: 'hobby' } }, 200);
      expect(hobby.body).toMatchObject({ tier: 'hobby', custom_limits: null });
      const custom = await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { tier: 'enterprise', limits: { per_minute: 5000, per_day: 500_000 } } }, 200);
      // The live-stream cap is the tier's until an admin sets the account's own.
      expect(custom.body.limits).toEqual({ per_minute: 5000, per_day: 500_000, streams: 50 });
      const streams = await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { limits: { per_minute: 5000, per_day: 500_000, streams: 7 } } }, 200);
      expect(streams.body).toMatchObject({ limits: { per_minute: 5000, per_day: 500_000, streams: 7 }, custom_limits: { per_minute: 5000, per_day: 500_000, streams: 7 } });
      expect((await user.api.call('getMe', { token: user.access }, 200)).body.limits).toEqual({ per_minute: 5000, per_day: 500_000, streams: 7 });

      // Disabling signs the account out everywhere (401); its API keys and logins get 403 account_disabled.
      const key = (await user.api.call('createApiKey', { token: user.access, json: { name: 'bot' } }, 201)).body.key;
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { disabled: true } }, 200);
      await user.api.call('getMe', { token: user.access }, 401);
      expect((await user.api.call('getUsage', { token: key }, 403)).body.code).toBe('account_disabled');
      const login = { json: { username: user.email, password: user.password } };
      expect((await user.api.call('login', login, 403)).body.code).toBe('account_disabled');
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { disabled: false, limits: null } }, 200);
      const back = await user.api.call('login', login, 200);
      expect((await user.api.call('getMe', { token: back.body.access_token }, 200)).body.tier).toBe('enterprise');

      // An administrator cannot disable their own account (it would end every way back in).
      const adminId = (await admin.api.call('getMe', { token: admin.access }, 200)).body.id;
      expect((await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: adminId }, json: { disabled: true } }, 409)).body.code).toBe('conflict');
      await admin.api.call('getMe', { token: admin.access }, 200);

      await admin.api.callInvalid('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { tier: 'gold' } }, 400);
      await admin.api.callInvalid('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: {} }, 400);
      const badCursor = await admin.api.call('adminListUsers', { token: admin.access, query: { cursor: 'nope' } }, 400);
      expect(badCursor.body.code).toBe('validation_failed');
    });

    it('searches users by part of the address or name, tier and status; shows one with their organizations and security log', async () => {
      const admin = await ctx().admin();
      const user = await signUp(ctx().api, 'searched');
      const team = await user.api.call('createOrganization', { token: user.access, json: { name: 'Searched team' } }, 201);
      const local = user.email.split('@')[0]!;
      const found = await admin.api.call('adminListUsers', { token: admin.access, query: { q: local.toUpperCase(), tier: 'free', disabled: 'false' } }, 200);
      expect(found.body.data.map((u: { id: string }) => u.id)).toEqual([user.id]);
      expect(found.body.data[0]).toMatchObject({ deletion_due_at: null, disabled: false });
      const none = await admin.api.call('adminListUsers', { token: admin.access, query: { q: local, disabled: 'true' } }, 200);
      expect(none.body).toEqual({ data: [], next_cursor: null });
      await admin.api.callInvalid('adminListUsers', { token: admin.access, query: { q: 'x'.repeat(101) } }, 400);

      const detail = await admin.api.call('adminGetUser', { token: admin.access, path: { id: user.id } }, 200);
      expect(detail.body).toMatchObject({ id: user.id, email: user.email, tier: 'free', role: 'user' });
      expect(detail.body.organizations).toEqual([
        { id: team.body.id, name: 'Searched team', role: 'owner', personal: false },
        expect.objectContaining({ role: 'owner', personal: true }),
      ]);

      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: user.id }, json: { tier: 'hobby' } }, 200);
      const log = await admin.api.call('adminListUserSecurityEvents', { token: admin.access, path: { id: user.id }, query: { limit: 1 } }, 200);
      expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(['account_updated_by_admin']);
      const signIns = await admin.api.call('adminListUserSecurityEvents', { token: admin.access, path: { id: user.id }, query: { type: 'sign_in', cursor: log.body.next_cursor } }, 200);
      expect(signIns.body.data.map((e: { type: string }) => e.type)).toEqual(['sign_in']);
      // The same page the user sees of their own log.
      expect((await user.api.call('listSecurityEvents', { token: user.access, query: { type: 'sign_in' } }, 200)).body).toEqual(signIns.body);
      await admin.api.call('adminListUserSecurityEvents', { token: admin.access, path: { id: user.id }, query: { cursor: 'nope' } }, 400);
      await admin.api.callInvalid('adminListUserSecurityEvents', { token: admin.access, path: { id: user.id }, query: { type: 'everything' } }, 400);
    });
  });
}
