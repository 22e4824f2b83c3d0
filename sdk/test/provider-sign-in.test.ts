/**
 * Provider sign-in through the SDK against a live server and a real OpenID provider
 * (oidc-provider on loopback): the mobile shape (an app scheme under APP_LINK_URL), a cancelled
 * sign-in, linking from settings, and PKCE computed by the SDK's own SHA-256 where Web Crypto is absent.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, providerCallbackOf } from '../src/index.js';
import { pkceChallenge, sha256Ascii } from '../src/pkce.js';
import { startTestIssuer, type TestIssuer } from '../../server/test/oidc-issuer.js';
import { signInAtProvider } from '../../server/test/provider-browser.js';
import { confirmEmail, rejection, signUp } from './helpers.js';
import { startLiveServer, type LiveServer, uniqueEmail } from './live-server.js';

let issuer: TestIssuer;
let server: LiveServer;
beforeAll(async () => {
  issuer = await startTestIssuer([{ client_id: 'gatehouse', client_secret: 'sdk-test-secret-at-the-issuer', application_type: 'native', redirect_uris: ['http://127.0.0.1/v1/auth/oidc/test-idp/callback'] }]);
  server = await startLiveServer({
    LOG_LEVEL: 'info', // mails (the confirmation link) are logged at info
    APP_LINK_URL: 'myapp://auth',
    OIDC_PROVIDERS: JSON.stringify([{ id: 'test-idp', name: 'Test IdP', issuer: issuer.url, client_id: 'gatehouse', client_secret: 'sdk-test-secret-at-the-issuer' }]),
  });
});
afterAll(async () => {
  await server?.stop();
  await issuer?.close();
});

const atApp = (url: URL) => url.protocol === 'myapp:';

function person() {
  const id = `sdk-person-${Math.random().toString(36).slice(2, 10)}`;
  const account = { id, email: uniqueEmail(), email_verified: true, name: 'Grace SDK' };
  issuer.accounts.set(id, account);
  return account;
}

describe('provider sign-in', () => {
  it('computes the same S256 challenge with Web Crypto and with its own SHA-256', async () => {
    for (const text of ['', 'abc', 'a'.repeat(43), 'x'.repeat(128), 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk']) {
      expect(Buffer.from(sha256Ascii(text)).toString('hex')).toBe(createHash('sha256').update(text).digest('hex'));
    }
    // RFC 7636 appendix B, through Web Crypto and through the fallback.
    expect(Buffer.from(sha256Ascii('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toString('base64url')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(await pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('signs in through the provider the way a mobile app does, and signs in to the same account again', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    expect((await gh.auth.providers()).data).toEqual([{ id: 'test-idp', name: 'Test IdP', type: 'oidc', web: true, native: false }]);
    const someone = person();
    const start = await gh.auth.providerSignIn('test-idp', { redirectUri: 'myapp://auth/oidc', state: 'open-chats' });
    expect(start.url.startsWith(`${server.base}/v1/auth/oidc/test-idp/authorize?`)).toBe(true);
    const back = await signInAtProvider(start.url, someone.id, { until: atApp });
    const { code, state } = providerCallbackOf(back.toString());
    expect(state).toBe('open-chats');
    const tokens = await gh.auth.completeProviderSignIn({ code, codeVerifier: start.codeVerifier });
    expect((await gh.session.get())?.accessToken).toBe(tokens.access_token);
    const me = await gh.me.get();
    expect(me).toMatchObject({ email: someone.email, name: 'Grace SDK', email_verified: true });
    expect((await gh.me.identities.list()).data).toEqual([expect.objectContaining({ provider: 'test-idp', email: someone.email })]);

    const again = await gh.auth.providerSignIn('test-idp', { redirectUri: 'myapp://auth/oidc' });
    const second = providerCallbackOf((await signInAtProvider(again.url, someone.id, { until: atApp })).toString());
    // Another verifier than the one that started this sign-in: refused.
    const wrong = await rejection(gh.auth.completeProviderSignIn({ code: second.code, codeVerifier: start.codeVerifier }));
    expect(isGatehouseError(wrong, 'invalid_token')).toBe(true);
    const third = await gh.auth.providerSignIn('test-idp', { redirectUri: 'myapp://auth/oidc' });
    const ok = providerCallbackOf((await signInAtProvider(third.url, someone.id, { until: atApp })).toString());
    await gh.auth.completeProviderSignIn({ code: ok.code, codeVerifier: third.codeVerifier });
    expect((await gh.me.get()).id).toBe(me.id);
  });

  it('reports a cancelled sign-in as access_denied', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const start = await gh.auth.providerSignIn('test-idp', { redirectUri: 'myapp://auth/oidc' });
    const back = await signInAtProvider(start.url, person().id, { until: atApp, cancel: true });
    const error = (() => { try { providerCallbackOf(back.toString()); return null; } catch (e) { return e; } })();
    expect(isGatehouseError(error, 'access_denied')).toBe(true);
  });

  it('links a provider from settings and unlinks it', async () => {
    const signedIn = await signUp(server);
    await confirmEmail(server, signedIn);
    const { gh, password } = signedIn;
    const someone = person();
    const start = await gh.auth.providerSignIn('test-idp', { redirectUri: 'myapp://auth/link' });
    const { code } = providerCallbackOf((await signInAtProvider(start.url, someone.id, { until: atApp })).toString());
    const identity = await gh.me.identities.link({ code, codeVerifier: start.codeVerifier, password });
    expect(identity).toMatchObject({ provider: 'test-idp', provider_name: 'Test IdP', email: someone.email });
    await gh.me.identities.unlink(identity.id);
    expect((await gh.me.identities.list()).data).toEqual([]);
  });
});
