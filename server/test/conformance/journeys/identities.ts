import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nativeIdToken, sha256Hex } from '../../native-id-token.js';
import { signInAtProvider } from '../../provider-browser.js';
import type { ContractClient } from '../contract-client.js';
import { confirmEmail, signUp, uniqueEmail, type GetContext } from '../context.js';
import { APP_LINK_URL, NATIVE_APP, OFFLINE_PROVIDER, OIDC_PROVIDER } from '../stack.js';

const REDIRECT_URI = `${APP_LINK_URL}/oidc`;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Sign-in with an OpenID provider (oidc-provider on loopback) through the proxies: the browser's
 * steps (authorize, the provider's form, the callback by query and by form post) and the app's
 * (the code exchange, linking and unlinking in settings).
 */
export function identitiesJourney(ctx: GetContext): void {
  /** Through authorize and the provider's sign-in form; returns the callback's parameters (not yet sent to Gatehouse). */
  async function atProvider(api: ContractClient, accountId: string) {
    const { verifier, challenge } = pkce();
    const toProvider = await api.redirect('authorizeWithProvider', {
      path: { provider: OIDC_PROVIDER }, query: { redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' },
    });
    const callback = await signInAtProvider(toProvider.toString(), accountId, { until: (url) => url.pathname.endsWith('/callback') });
    return { verifier, query: Object.fromEntries(callback.searchParams) };
  }

  /** The whole browser part: the app's redirect URI receives a code. */
  async function providerCode(api: ContractClient, accountId: string, via: 'query' | 'form' = 'query') {
    const { verifier, query } = await atProvider(api, accountId);
    const location = via === 'query'
      ? await api.redirect('providerCallback', { path: { provider: OIDC_PROVIDER }, query })
      : await api.redirect('providerCallbackFormPost', { path: { provider: OIDC_PROVIDER }, form: query });
    expect(location.toString().startsWith(`${REDIRECT_URI}?`)).toBe(true);
    return { code: location.searchParams.get('code')!, verifier, query };
  }

  function person(emailVerified = true, email = uniqueEmail('oidc')) {
    const id = `conformance-${randomBytes(4).toString('hex')}`;
    ctx().stack.issuer.accounts.set(id, { id, email, email_verified: emailVerified, name: 'Conformance Provider Person' });
    return { id, email };
  }

  describe('sign-in with an OpenID provider', () => {
    it('lists providers, signs a new person in (query and form-post callbacks), and refuses replays', async () => {
      const api = ctx().api.from(`198.19.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 254)}`);
      const listed = await api.call('listSignInProviders', {}, 200);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([OIDC_PROVIDER, OFFLINE_PROVIDER]);

      const someone = person();
      const first = await providerCode(api, someone.id);
      const tokens = await api.call('exchangeProviderCode', { json: { code: first.code, code_verifier: first.verifier } }, 200);
      expect(tokens.body.token_type).toBe('bearer');
      await api.call('exchangeProviderCode', { json: { code: first.code, code_verifier: first.verifier } }, 401);
      await api.callInvalid('exchangeProviderCode', { json: { code: first.code } }, 400);
      // The provider's answer again: its state was spent.
      await api.call('providerCallback', { path: { provider: OIDC_PROVIDER }, query: first.query }, 400);
      await api.call('providerCallbackFormPost', { path: { provider: OIDC_PROVIDER }, form: first.query }, 400);
      await api.call('providerCallback', { path: { provider: 'nobody' }, query: first.query }, 404);
      await api.call('providerCallbackFormPost', { path: { provider: 'nobody' }, form: first.query }, 404);

      const byForm = await providerCode(api, someone.id, 'form');
      const again = await api.call('exchangeProviderCode', { json: { code: byForm.code, code_verifier: byForm.verifier } }, 200);
      const identities = await api.call('listIdentities', { token: again.body.access_token }, 200);
      expect(identities.body.data).toHaveLength(1);
      // The account's only way in stays.
      await api.call('unlinkIdentity', { token: again.body.access_token, path: { id: identities.body.data[0].id } }, 409);
    });

    it('refuses redirect URIs it does not know, unknown providers, and reports a provider that cannot be reached', async () => {
      const api = ctx().api;
      const { challenge } = pkce();
      const query = { redirect_uri: 'https://elsewhere.example/steal', code_challenge: challenge, code_challenge_method: 'S256' };
      const refused = await api.call('authorizeWithProvider', { path: { provider: OIDC_PROVIDER }, query }, 400);
      expect(refused.body.errors[0].field).toBe('/redirect_uri');
      await api.call('authorizeWithProvider', { path: { provider: 'nobody' }, query: { ...query, redirect_uri: REDIRECT_URI } }, 404);
      const down = await api.call('authorizeWithProvider', { path: { provider: OFFLINE_PROVIDER }, query: { ...query, redirect_uri: REDIRECT_URI } }, 503);
      expect(down.headers.get('retry-after')).toBe('60');
    });

    it("signs a native app's person in with its ID token, and refuses what does not hold", async () => {
      const { api, stack } = ctx();
      const someone = person();
      const nonce = `conformance-${randomBytes(8).toString('hex')}`;
      const idToken = await nativeIdToken(stack.issuer.url, NATIVE_APP, someone.id, sha256Hex(nonce));
      const tokens = await api.call('signInWithIdToken', { json: { provider: OIDC_PROVIDER, id_token: idToken, nonce } }, 200);
      expect(tokens.body.token_type).toBe('bearer');
      expect((await api.call('signInWithIdToken', { json: { provider: OIDC_PROVIDER, id_token: idToken, nonce: 'another' } }, 401)).body.code).toBe('invalid_token');
      const unverified = person(false);
      const unverifiedToken = await nativeIdToken(stack.issuer.url, NATIVE_APP, unverified.id);
      expect((await api.call('signInWithIdToken', { json: { provider: OIDC_PROVIDER, id_token: unverifiedToken } }, 403)).body.code).toBe('email_not_verified');
      const registered = await signUp(api, 'native-taken');
      const taken = await nativeIdToken(stack.issuer.url, NATIVE_APP, person(true, registered.email).id);
      expect((await api.call('signInWithIdToken', { json: { provider: OIDC_PROVIDER, id_token: taken } }, 409)).body.code).toBe('email_taken');
      await api.call('signInWithIdToken', { json: { provider: 'nobody', id_token: idToken } }, 400);
      const down = await api.call('signInWithIdToken', { json: { provider: OFFLINE_PROVIDER, id_token: idToken } }, 503);
      expect(down.headers.get('retry-after')).toBe('60');
    });

    it('never signs in by an unverified email, on either side', async () => {
      const api = ctx().api;
      const unverified = person(false);
      const a = await providerCode(api, unverified.id);
      expect((await api.call('exchangeProviderCode', { json: { code: a.code, code_verifier: a.verifier } }, 403)).body.code).toBe('email_not_verified');
      const registered = await signUp(api, 'oidc-unverified');
      const sameEmail = person(true, registered.email);
      const b = await providerCode(api, sameEmail.id);
      expect((await api.call('exchangeProviderCode', { json: { code: b.code, code_verifier: b.verifier } }, 409)).body.code).toBe('email_taken');
    });

    it('links a provider in settings with the password, refuses it twice, and unlinks it', async () => {
      const actor = await signUp(ctx().api, 'oidc-link');
      await confirmEmail(ctx().stack, actor);
      const someone = person();
      const first = await providerCode(actor.api, someone.id);
      await actor.api.call('linkIdentity', { token: actor.access, json: { code: first.code, code_verifier: first.verifier } }, 400);
      const second = await providerCode(actor.api, someone.id);
      const linked = await actor.api.call('linkIdentity', { token: actor.access, json: { code: second.code, code_verifier: second.verifier, password: actor.password } }, 201);
      expect(linked.headers.get('location')).toBe(`/v1/users/me/identities/${linked.body.id}`);
      const third = await providerCode(actor.api, someone.id);
      await actor.api.call('linkIdentity', { token: actor.access, json: { code: third.code, code_verifier: third.verifier, password: actor.password } }, 409);
      await actor.api.call('unlinkIdentity', { token: actor.access, path: { id: linked.body.id } }, 204);
      await actor.api.call('unlinkIdentity', { token: actor.access, path: { id: linked.body.id } }, 404);
    });
  });
}
