/**
 * Native sign-in with ID tokens (POST /v1/auth/id-token): what Sign in with Apple and Google's
 * sheet hand an app, from a real OpenID issuer on loopback (oidc-provider, test/oidc-issuer.ts)
 * standing in for Apple and Google. The signature, issuer, audience, expiry and nonce are checked;
 * accounts are found, made and linked by the browser flow's rules; the second factor applies.
 */
import { generateKeyPair, SignJWT } from 'jose';
import * as OTPAuth from 'otpauth';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { nativeIdToken, nativeTestClient, sha256Hex, type NativeApp } from '../native-id-token.js';
import { startTestIssuer, type TestIssuer } from '../oidc-issuer.js';

const IOS_APP: NativeApp = { clientId: 'com.example.notes', clientSecret: 'the sheet proves itself its own way', redirectUri: 'com.example.notes:/oauth' };
const OTHER_APP: NativeApp = { clientId: 'com.example.other', clientSecret: 'another app at the same issuer', redirectUri: 'com.example.other:/oauth' };

describe(`native ID tokens (${dialect})`, () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    issuer = await startTestIssuer([nativeTestClient(IOS_APP), nativeTestClient(OTHER_APP)], { claimsInIdToken: true });
    t = await createTestApp({
      env: {
        ANONYMOUS_SIGN_IN: 'true',
        OIDC_PROVIDERS: JSON.stringify([
          // The Apple preset, pointed at the local issuer, for native apps only (no client secret).
          { id: 'apple', type: 'apple', issuer: issuer.url, native_client_ids: [IOS_APP.clientId] },
          { id: 'down', type: 'google', issuer: 'http://127.0.0.1:9', native_client_ids: [IOS_APP.clientId] },
        ]),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  /** A person at the issuer with a verified address of their own. */
  function person(verified = true) {
    const id = `native-${++n}-${Date.now()}`;
    const email = `${id}@example.com`;
    issuer.accounts.set(id, { id, email, email_verified: verified, name: `Native ${n}` });
    return { id, email };
  }
  const signIn = (body: Record<string, unknown>) => t.request({ method: 'POST', url: '/v1/auth/id-token', payload: body });

  it("signs a new person in with Apple's way of the nonce (SHA-256 in the token, the raw one in the request)", async () => {
    const who = person();
    const raw = `nonce-${n}-${Math.random()}`;
    const idToken = await nativeIdToken(issuer.url, IOS_APP, who.id, sha256Hex(raw));
    const res = await signIn({ provider: 'apple', id_token: idToken, nonce: raw });
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeJwt(res.json().access_token).amr).toEqual(['oidc']);
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(res.json().access_token) })).json();
    expect(me).toMatchObject({ email: who.email, email_verified: true, name: `Native ${n}` });
    const identities = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(res.json().access_token) })).json();
    expect(identities.data).toMatchObject([{ provider: 'apple', provider_name: 'Apple', email: who.email }]);

    // The same person again: the same account.
    const again = await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) });
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(again.json().access_token) })).json().id).toBe(me.id);
  });

  it("takes Google's way of the nonce (the raw one in the token) and none at all", async () => {
    const who = person();
    const raw = `raw-nonce-${n}`;
    expect((await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id, raw), nonce: raw })).statusCode).toBe(200);
    expect((await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) })).statusCode).toBe(200);
  });

  it('refuses a nonce that does not match, a missing one, and one the token does not carry', async () => {
    const who = person();
    const raw = `nonce-${n}`;
    const idToken = await nativeIdToken(issuer.url, IOS_APP, who.id, sha256Hex(raw));
    for (const nonce of ['another nonce', sha256Hex(sha256Hex(raw)), undefined]) {
      const res = await signIn({ provider: 'apple', id_token: idToken, ...(nonce === undefined ? {} : { nonce }) });
      expect(res.statusCode, String(nonce)).toBe(401);
      expect(res.json().code).toBe('invalid_token');
    }
    const without = await nativeIdToken(issuer.url, IOS_APP, who.id);
    expect((await signIn({ provider: 'apple', id_token: without, nonce: raw })).statusCode).toBe(401);
  });

  it("refuses another app's token, a foreign signature, an expired token and another issuer's", async () => {
    const who = person();
    const otherApp = await nativeIdToken(issuer.url, OTHER_APP, who.id);
    expect((await signIn({ provider: 'apple', id_token: otherApp })).json()).toMatchObject({ status: 401, code: 'invalid_token' });

    const claims = { sub: who.id, email: who.email, email_verified: true };
    const shaped = (key: CryptoKey, change: (jwt: SignJWT) => SignJWT) =>
      change(new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer(issuer.url).setAudience(IOS_APP.clientId).setIssuedAt()).sign(key);
    // The issuer's own key, and claims right: accepted (so each refusal below is for its one change).
    const good = await shaped(issuer.signingKey, (jwt) => jwt.setExpirationTime('5m'));
    expect((await signIn({ provider: 'apple', id_token: good })).statusCode).toBe(200);

    const { privateKey: foreign } = await generateKeyPair('RS256');
    const refusals = {
      'a foreign signature': await shaped(foreign, (jwt) => jwt.setExpirationTime('5m')),
      expired: await shaped(issuer.signingKey, (jwt) => jwt.setIssuedAt(Math.floor(Date.now() / 1000) - 3600).setExpirationTime(Math.floor(Date.now() / 1000) - 600)),
      'another issuer': await shaped(issuer.signingKey, (jwt) => jwt.setIssuer('https://appleid.apple.com').setExpirationTime('5m')),
      'another audience': await shaped(issuer.signingKey, (jwt) => jwt.setAudience('com.example.other').setExpirationTime('5m')),
      'not a JWT': 'not-a-token',
    };
    for (const [why, idToken] of Object.entries(refusals)) {
      const res = await signIn({ provider: 'apple', id_token: idToken });
      expect(res.statusCode, why).toBe(401);
      expect(res.json().code, why).toBe('invalid_token');
    }
  });

  it('links to the account with the same verified address, and asks for its second factor', async () => {
    const who = person();
    const owner = await t.signUp({ email: who.email });
    await t.confirmEmail(owner.id);
    const linked = await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) });
    expect(linked.statusCode, linked.body).toBe(200);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(linked.json().access_token) })).json().id).toBe(owner.id);

    const token = owner.tokens.access_token;
    const enrol = (await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(token), payload: { password: owner.password } })).json();
    const totp = OTPAuth.URI.parse(enrol.otpauth_url) as OTPAuth.TOTP;
    await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(token), payload: { code: totp.generate({ timestamp: t.clock.now() }) } });
    const step = await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) });
    expect(step.statusCode).toBe(403);
    expect(step.json().code).toBe('mfa_required');
  });

  it('makes no account from an address the issuer did not verify', async () => {
    const who = person(false);
    const res = await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('email_not_verified');
  });

  it('lists the providers with what each takes, and has no browser flow for a native-only one', async () => {
    const list = (await t.request({ method: 'GET', url: '/v1/auth/providers' })).json();
    expect(list.data).toContainEqual({ id: 'apple', name: 'Apple', type: 'apple', web: false, native: true });
    const authorize = await t.request({
      method: 'GET', url: '/v1/auth/oidc/apple/authorize?redirect_uri=http%3A%2F%2Fgatehouse.test%2Foidc-callback&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256',
    });
    expect(authorize.statusCode).toBe(404);
  });

  it("turns a guest into the provider's account when its token comes along: same id and data, the provider's address", async () => {
    const guest = (await t.request({ method: 'POST', url: '/v1/auth/anonymous' })).json();
    const auth = bearer(guest.access_token);
    const guestId = decodeJwt(guest.access_token).sub;
    const agent = (await t.request({ method: 'POST', url: '/v1/agents', headers: auth, payload: { name: 'Made as a guest', model: 'gpt-test' } })).json();
    const who = person();
    const res = await t.request({ method: 'POST', url: '/v1/auth/id-token', headers: auth, payload: { provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) } });
    expect(res.statusCode, res.body).toBe(200);
    const upgraded = bearer(res.json().access_token);
    expect(decodeJwt(res.json().access_token).sub).toBe(guestId);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: upgraded })).json()).toMatchObject({ id: guestId, email: who.email, email_verified: true, is_anonymous: false });
    expect((await t.request({ method: 'GET', url: `/v1/agents/${agent.id}`, headers: upgraded })).statusCode).toBe(200);
    // Signing in later without a guest reaches the same account.
    const later = await signIn({ provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) });
    expect(decodeJwt(later.json().access_token).sub).toBe(guestId);

    // Another guest with an identity that has an account: 409, and it stays a guest.
    const second = (await t.request({ method: 'POST', url: '/v1/auth/anonymous' })).json();
    const taken = await t.request({ method: 'POST', url: '/v1/auth/id-token', headers: bearer(second.access_token), payload: { provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, who.id) } });
    expect(taken.statusCode).toBe(409);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(second.access_token) })).json().is_anonymous).toBe(true);
    // An ordinary account's token changes nothing: the sign-in reaches the identity's account. A dead token is refused.
    const someone = await t.signUp();
    const other = person();
    const notGuest = await t.request({ method: 'POST', url: '/v1/auth/id-token', headers: bearer(someone.tokens.access_token), payload: { provider: 'apple', id_token: await nativeIdToken(issuer.url, IOS_APP, other.id) } });
    expect(notGuest.statusCode).toBe(200);
    expect(decodeJwt(notGuest.json().access_token).sub).not.toBe(someone.id);
    const dead = await t.request({ method: 'POST', url: '/v1/auth/id-token', headers: { authorization: 'Bearer not-a-token' }, payload: { provider: 'apple', id_token: 'x' } });
    expect(dead.statusCode).toBe(401);
  });

  it('answers an unknown provider 400, and an issuer it cannot reach 503', async () => {
    const unknown = await signIn({ provider: 'nobody', id_token: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('/provider');
    const down = await signIn({ provider: 'down', id_token: 'x' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('60');
  });
});
