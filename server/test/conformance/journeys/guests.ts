import { describe, expect, it } from 'vitest';
import { PASSWORD, randomIp, uniqueEmail, type GetContext } from '../context.js';

/** Guest accounts: one click in, refused a lasting credential, upgraded keeping the id. */
export function guestsJourney(ctx: GetContext): void {
  describe('guest accounts', () => {
    it('signs in as a guest, is refused an API key, and upgrades; an address in use is 409', async () => {
      const api = ctx().api.from(randomIp());
      const tokens = await api.call('signInAnonymously', { json: {} }, 200);
      const token = tokens.body.access_token as string;
      const me = await api.call('getMe', { token }, 200);
      expect(me.body).toMatchObject({ email: null, is_anonymous: true });
      const refused = await api.call('createApiKey', { token, json: { name: 'guest key', scopes: ['agents:read'] } }, 403);
      expect(refused.body.code).toBe('guest_not_allowed');

      const taken = await api.call('signInAnonymously', { json: {} }, 200);
      const email = uniqueEmail('guest');
      const upgraded = await api.call('upgradeGuest', { token, json: { email, password: PASSWORD, name: 'Grace Guest' } }, 200);
      expect(upgraded.body).toMatchObject({ id: me.body.id, email, is_anonymous: false });
      const inUse = await api.call('upgradeGuest', { token: taken.body.access_token, json: { email } }, 409);
      expect(inUse.body.code).toBe('email_taken');
      await api.callInvalid('upgradeGuest', { token: taken.body.access_token, json: { email: 'not an address' } }, 400);
    });
  });
}
