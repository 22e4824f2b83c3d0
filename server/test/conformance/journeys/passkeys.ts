import { describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../../soft-authenticator.js';
import { confirmEmail, signUp, type GetContext } from '../context.js';
import { PASSKEY_ORIGIN } from '../stack.js';

/** Passkeys: add (with a software authenticator), list, rename, sign in without a password, remove. */
export function passkeysJourney(ctx: GetContext): void {
  describe('passkeys', () => {
    it('adds a passkey, signs in with it alone, renames and removes it', async () => {
      const actor = await signUp(ctx().api, 'passkey');
      await confirmEmail(ctx().stack, actor);
      const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
      const options = await actor.api.call('passkeyRegistrationOptions', { token: actor.access, json: { password: actor.password } }, 200);
      const credential = authenticator.create(options.body.options);
      const added = await actor.api.call('addPasskey', { token: actor.access, json: { challenge_id: options.body.challenge_id, credential, name: 'Laptop' } }, 201);
      expect(added.body.name).toBe('Laptop');
      // The challenge is spent; the same authenticator again is refused either way.
      await actor.api.call('addPasskey', { token: actor.access, json: { challenge_id: options.body.challenge_id, credential } }, 400);
      const again = await actor.api.call('passkeyRegistrationOptions', { token: actor.access, json: { password: actor.password } }, 200);
      expect(again.body.options.excludeCredentials).toHaveLength(1);
      await actor.api.call('addPasskey', { token: actor.access, json: { challenge_id: again.body.challenge_id, credential: authenticator.create(again.body.options) } }, 409);
      await actor.api.callInvalid('addPasskey', { token: actor.access, json: { challenge_id: 'x', credential: { id: 'x' } } }, 400);

      const login = await actor.api.call('passkeyLoginOptions', {}, 200);
      const tokens = await actor.api.call('passkeyLogin', { json: { challenge_id: login.body.challenge_id, credential: authenticator.get(login.body.options) } }, 200);
      expect(tokens.body.token_type).toBe('bearer');
      await actor.api.call('passkeyLogin', { json: { challenge_id: login.body.challenge_id, credential: authenticator.get(login.body.options) } }, 401);
      await actor.api.callInvalid('passkeyLogin', { json: { challenge_id: login.body.challenge_id } }, 400);

      const list = await actor.api.call('listPasskeys', { token: tokens.body.access_token }, 200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([added.body.id]);
      await actor.api.call('renamePasskey', { token: actor.access, path: { id: added.body.id }, json: { name: 'Work laptop' } }, 200);
      await actor.api.call('removePasskey', { token: actor.access, path: { id: added.body.id } }, 204);
      await actor.api.call('removePasskey', { token: actor.access, path: { id: added.body.id } }, 404);
      await actor.api.call('renamePasskey', { token: actor.access, path: { id: added.body.id }, json: { name: 'Gone' } }, 404);
    });

    it('a disabled account cannot sign in with its passkey', async () => {
      const c = ctx();
      const admin = await c.admin();
      const actor = await signUp(c.api, 'passkey-disabled');
      await confirmEmail(c.stack, actor);
      const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
      const options = await actor.api.call('passkeyRegistrationOptions', { token: actor.access, json: { password: actor.password } }, 200);
      await actor.api.call('addPasskey', { token: actor.access, json: { challenge_id: options.body.challenge_id, credential: authenticator.create(options.body.options) } }, 201);
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: actor.id }, json: { disabled: true } }, 200);
      const login = await actor.api.call('passkeyLoginOptions', {}, 200);
      const refused = await actor.api.call('passkeyLogin', { json: { challenge_id: login.body.challenge_id, credential: authenticator.get(login.body.options) } }, 403);
      expect(refused.body.code).toBe('account_disabled');
    });
  });
}
