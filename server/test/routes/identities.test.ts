import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import * as OTPAuth from 'otpauth';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';
import { startTestIssuer, type TestIssuer } from '../oidc-issuer.js';
import { signInAtProvider } from '../provider-browser.js';
import { SoftAuthenticator } from '../soft-authenticator.js';

const PUBLIC_URL = 'http://gatehouse.test';
const CALLBACK = `${PUBLIC_URL}/v1/auth/oidc/test-idp/callback`;
const WEB_REDIRECT = `${PUBLIC_URL}/oidc-callback`;
const APP_REDIRECT = 'myapp://auth/oidc';

/** An app's side of PKCE: the verifier it keeps and the S256 challenge it sends. */
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Sign-in with an OpenID provider, end to end against oidc-provider on loopback: Gatehouse talks
 * to it over real HTTP (discovery, token, userinfo, JWKS); the test plays the browser.
 */
describe(`sign-in with OpenID Connect providers (${dialect})`, () => {
  let t: TestApp;
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer([
      { client_id: 'gatehouse', client_secret: 'gatehouse-secret-at-the-test-issuer', redirect_uris: [CALLBACK] },
      { client_id: 'another-app', client_secret: 'another-app-secret-at-the-test-issuer', redirect_uris: ['http://another.test/callback'] },
    ]);
    t = await createTestApp({
      env: {
        APP_LINK_URL: 'myapp://auth',
        OIDC_PROVIDERS: JSON.stringify([{ id: 'test-idp', name: 'Test IdP', issuer: issuer.url, client_id: 'gatehouse', client_secret: 'gatehouse-secret-at-the-test-issuer' }]),
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await issuer.close();
  });

  function person(overrides: { email_verified?: boolean; email?: string; name?: string } = {}) {
    const id = `person-${randomBytes(4).toString('hex')}`;
    const account = { id, email: overrides.email ?? uniqueEmail(), email_verified: overrides.email_verified ?? true, name: overrides.name ?? 'Ada Provider' };
    issuer.accounts.set(id, account);
    return account;
  }

  /** The path and query of a URL on Gatehouse, for inject. */
  const onGatehouse = (url: URL) => {
    expect(url.origin).toBe(PUBLIC_URL);
    return url.pathname + url.search;
  };

  async function authorize(redirectUri = WEB_REDIRECT, state?: string) {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({ redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', ...(state ? { state } : {}) });
    const started = await t.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${query}` });
    expect(started.statusCode, started.body).toBe(302);
    return { verifier, providerUrl: String(started.headers.location) };
  }

  /** authorize → the provider (signed in as `accountId`) → Gatehouse's callback → the app's redirect URI. */
  async function providerSignIn(accountId: string, redirectUri = WEB_REDIRECT, options: { cancel?: boolean; state?: string } = {}) {
    const { verifier, providerUrl } = await authorize(redirectUri, options.state);
    const callback = await signInAtProvider(providerUrl, accountId, options);
    const finished = await t.request({ method: 'GET', url: onGatehouse(callback) });
    expect(finished.statusCode, finished.body).toBe(302);
    const back = new URL(String(finished.headers.location));
    return { verifier, callback, back, code: back.searchParams.get('code') };
  }

  const exchange = (code: string | null, verifier: string) =>
    t.request({ method: 'POST', url: '/v1/auth/oidc/token', payload: { code, code_verifier: verifier } });

  it('lists the configured providers for sign-in buttons', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/auth/providers' });
    expect(res.json()).toEqual({ data: [{ id: 'test-idp', name: 'Test IdP', type: 'oidc', web: true, native: false }], next_cursor: null });
  });

  it('web redirect flow: a new person gets a verified account, and the same account next time (amr oidc)', async () => {
    const someone = person();
    const { verifier, providerUrl } = await authorize(WEB_REDIRECT, 'app-state-1');
    const atProvider = new URL(providerUrl);
    expect(atProvider.origin).toBe(issuer.url);
    expect(Object.fromEntries(atProvider.searchParams)).toMatchObject({
      client_id: 'gatehouse', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email profile', code_challenge_method: 'S256',
      state: expect.any(String), nonce: expect.any(String), code_challenge: expect.any(String),
    });
    const finished = await t.request({ method: 'GET', url: onGatehouse(await signInAtProvider(providerUrl, someone.id)) });
    expect(finished.headers['referrer-policy']).toBe('no-referrer');
    const back = new URL(String(finished.headers.location));
    expect(back.origin + back.pathname).toBe(WEB_REDIRECT);
    expect(back.searchParams.get('state')).toBe('app-state-1');
    expect(back.searchParams.get('code')).toMatch(/^gthc_/);

    const tokens = await exchange(back.searchParams.get('code'), verifier);
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(decodeJwt(tokens.json().access_token)).toMatchObject({ amr: ['oidc'] });
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.json().access_token) })).json();
    expect(me).toMatchObject({ email: someone.email, name: 'Ada Provider', email_verified: true, has_password: false });
    const identities = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(tokens.json().access_token) })).json();
    expect(identities.data).toEqual([expect.objectContaining({ provider: 'test-idp', provider_name: 'Test IdP', email: someone.email })]);

    const again = await providerSignIn(someone.id);
    const second = await exchange(again.code, again.verifier);
    expect(decodeJwt(second.json().access_token).sub).toBe(me.id);
    // An account made through a provider has no password: a password login fails like any wrong one.
    const passwordLogin = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: someone.email, password: '' + STRONG_PASSWORD } });
    expect(passwordLogin.statusCode).toBe(401);
  });

  it('a provider sign-in during the grace restores an account scheduled for deletion', async () => {
    const someone = person();
    const first = await providerSignIn(someone.id);
    const token = (await exchange(first.code, first.verifier)).json().access_token as string;
    const userId = decodeJwt(token).sub!;
    // No password to give: the fresh sign-in confirms the owner.
    const scheduled = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(token) });
    expect(scheduled.statusCode, scheduled.body).toBe(202);
    const dueAt = async () => (await t.deps.database.db.selectFrom('users').select('deletion_due_at').where('id', '=', userId).executeTakeFirstOrThrow()).deletion_due_at;
    expect(await dueAt()).not.toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) })).statusCode).toBe(401);

    const again = await providerSignIn(someone.id);
    const restored = await exchange(again.code, again.verifier);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await dueAt()).toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(restored.json().access_token) })).json()).toMatchObject({ id: userId, email: someone.email });
  });

  it('mobile flow: the code comes back under APP_LINK_URL and only the app verifier redeems it', async () => {
    const someone = person();
    const { back, verifier } = await providerSignIn(someone.id, APP_REDIRECT);
    expect(back.protocol).toBe('myapp:');
    expect(back.toString().startsWith(`${APP_REDIRECT}?code=gthc_`)).toBe(true);
    const tokens = await exchange(back.searchParams.get('code'), verifier);
    expect(tokens.statusCode, tokens.body).toBe(200);
  });

  it('refuses a wrong state, a replayed callback, a replayed code and a wrong PKCE verifier', async () => {
    const someone = person();
    const { providerUrl } = await authorize();
    const callback = await signInAtProvider(providerUrl, someone.id);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'a-state-gatehouse-never-issued');
    const wrongState = await t.request({ method: 'GET', url: onGatehouse(forged) });
    expect(wrongState.statusCode).toBe(400);
    expect(wrongState.json().code).toBe('invalid_request');
    expect((await t.request({ method: 'GET', url: '/v1/auth/oidc/test-idp/callback?code=abc' })).statusCode).toBe(400);

    const first = await t.request({ method: 'GET', url: onGatehouse(callback) });
    expect(first.statusCode).toBe(302);
    const replayedCallback = await t.request({ method: 'GET', url: onGatehouse(callback) });
    expect(replayedCallback.statusCode).toBe(400);

    // The app's code: a wrong verifier is refused, and spends the code for the right one too.
    const code = new URL(String(first.headers.location)).searchParams.get('code');
    const wrongVerifier = await exchange(code, pkce().verifier);
    expect(wrongVerifier.statusCode).toBe(401);
    expect(wrongVerifier.json().code).toBe('invalid_token');

    const fresh = await providerSignIn(someone.id);
    expect((await exchange(fresh.code, fresh.verifier)).statusCode).toBe(200);
    expect((await exchange(fresh.code, fresh.verifier)).statusCode).toBe(401);
  });

  it('refuses an ID token issued to another client, even with the right nonce and a valid signature', async () => {
    const someone = person();
    const { providerUrl } = await authorize();
    const nonce = new URL(providerUrl).searchParams.get('nonce')!;
    // The same person signs in to another app whose authorization request carries the same nonce.
    const other = pkce();
    const otherAuthorize = new URL(`${issuer.url}/auth`);
    otherAuthorize.search = new URLSearchParams({
      client_id: 'another-app', redirect_uri: 'http://another.test/callback', response_type: 'code', scope: 'openid email',
      nonce, state: 'x', code_challenge: other.challenge, code_challenge_method: 'S256',
    }).toString();
    const otherCode = (await signInAtProvider(otherAuthorize.toString(), someone.id)).searchParams.get('code')!;
    const otherTokens = await (await fetch(`${issuer.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: otherCode, redirect_uri: 'http://another.test/callback', client_id: 'another-app', client_secret: 'another-app-secret-at-the-test-issuer', code_verifier: other.verifier }),
    })).json() as { id_token: string };
    expect(decodeJwt(otherTokens.id_token)).toMatchObject({ aud: 'another-app', nonce });

    issuer.tamperTokenResponse = (body) => ({ ...body, id_token: otherTokens.id_token });
    try {
      const finished = await t.request({ method: 'GET', url: onGatehouse(await signInAtProvider(providerUrl, someone.id)) });
      const back = new URL(String(finished.headers.location));
      expect(back.searchParams.get('code')).toBeNull();
      expect(back.searchParams.get('error')).toBe('provider_error');
      expect(t.logs.some((line) => line.includes('sign-in provider answer refused') && line.includes('aud'))).toBe(true);
    } finally {
      issuer.tamperTokenResponse = null;
    }
  });

  it('a cancelled sign-in at the provider comes back as access_denied', async () => {
    const { back } = await providerSignIn(person().id, WEB_REDIRECT, { cancel: true });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it("refuses redirect URIs other than the dashboard's callback, OIDC_REDIRECT_URIS and under APP_LINK_URL, and unknown providers", async () => {
    const { challenge } = pkce();
    const refused = [
      'https://evil.test/steal', 'myapp://auth-evil', 'javascript:alert(1)', `${WEB_REDIRECT}#frag`, 'http://user:pw@gatehouse.test/oidc-callback',
      // Another page of this server, and ways out of APP_LINK_URL that only normalising reveals.
      `${PUBLIC_URL}/settings`, 'myapp://auth/../evil', 'myapp://auth/%2e%2e/evil', 'myapp://auth/oidc/..', `${PUBLIC_URL}/oidc-callback/../settings`,
    ];
    for (const redirect of refused) {
      const query = new URLSearchParams({ redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' });
      const res = await t.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${query}` });
      expect(res.statusCode, redirect).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ field: '/redirect_uri', code: 'not_allowed' });
    }
    const plain = new URLSearchParams({ redirect_uri: WEB_REDIRECT, code_challenge: challenge, code_challenge_method: 'plain' });
    expect((await t.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${plain}` })).statusCode).toBe(400);
    const unknown = new URLSearchParams({ redirect_uri: WEB_REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await t.request({ method: 'GET', url: `/v1/auth/oidc/nobody/authorize?${unknown}` })).statusCode).toBe(404);
  });

  it('answers a browser a readable page, not JSON, when a sign-in cannot start or finish (a dashboard opened on another host name than PUBLIC_URL)', async () => {
    const { challenge } = pkce();
    // The dashboard opened as http://localhost:… while PUBLIC_URL names another host: its callback is not this server's.
    const query = new URLSearchParams({ redirect_uri: 'http://localhost:8080/oidc-callback', code_challenge: challenge, code_challenge_method: 'S256' });
    const navigation = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await t.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${query}`, headers: { accept: navigation } });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<h1>Validation failed</h1>');
    expect(page.body).toContain('redirect_uri must be this server&#39;s /oidc-callback');
    expect(page.body).toContain(`href="${PUBLIC_URL}/login"`);
    expect(page.body).toContain(String(page.headers['x-request-id']));
    // An unknown state at the callback, in a browser: a page too.
    const callback = await t.request({ method: 'GET', url: '/v1/auth/oidc/test-idp/callback?state=unknown&code=x', headers: { accept: navigation } });
    expect(callback.statusCode).toBe(400);
    expect(callback.headers['content-type']).toBe('text/html; charset=utf-8');
    // A program asking for JSON, or for anything, keeps getting problem+json; other routes never answer a page.
    for (const accept of ['application/json', '*/*']) {
      const res = await t.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${query}`, headers: { accept } });
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
    const api = await t.request({ method: 'GET', url: '/v1/users/me', headers: { accept: navigation } });
    expect(api.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it("a provider's odd claims never make a 500: control characters leave the name, an address too long for an account counts as none", async () => {
    const odd = person({ name: 'Ada\u0000 \u202eProvider\u0007' });
    const made = await providerSignIn(odd.id);
    const tokens = await exchange(made.code, made.verifier);
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.json().access_token) })).json().name).toBe('Ada Provider');
    const long = person({ email: `${'a'.repeat(250)}@example.com` });
    const refused = await providerSignIn(long.id);
    const answer = await exchange(refused.code, refused.verifier);
    expect(answer.statusCode).toBe(403);
    expect(answer.json().code).toBe('email_not_verified');
  });

  it('takes parameters a provider adds of its own at the callback (Entra client_info)', async () => {
    const { verifier, providerUrl } = await authorize();
    const callback = await signInAtProvider(providerUrl, person().id);
    callback.searchParams.set('client_info', 'eyJ1aWQiOiJ4In0');
    const back = new URL(String((await t.request({ method: 'GET', url: onGatehouse(callback) })).headers.location));
    expect((await exchange(back.searchParams.get('code'), verifier)).statusCode).toBe(200);
  });

  it('an account whose address is not confirmed cannot link a provider (no pre-hijacking)', async () => {
    // Someone registers another person's address with a password and tries to plant their provider.
    const squatter = await t.signUp();
    const theirs = await providerSignIn(person().id);
    const planted = await t.request({ method: 'POST', url: '/v1/users/me/identities', headers: bearer(squatter.tokens.access_token), payload: { code: theirs.code, code_verifier: theirs.verifier, password: STRONG_PASSWORD } });
    expect(planted.statusCode).toBe(403);
    expect(planted.json().code).toBe('email_not_verified');
    // Nor a passkey, nor an authenticator app.
    for (const url of ['/v1/users/me/passkeys/options', '/v1/users/me/mfa/totp']) {
      const res = await t.request({ method: 'POST', url, headers: bearer(squatter.tokens.access_token), payload: { password: STRONG_PASSWORD } });
      expect(res.json().code, url).toBe('email_not_verified');
    }
  });

  it('never links by email to an admin, or for a provider configured with link_by_email false', async () => {
    const admin = await t.signUp();
    await t.confirmEmail(admin.id);
    await sql`update users set role = 'admin' where id = ${admin.id}`.execute(t.deps.database.db);
    const sameEmail = await providerSignIn(person({ email: admin.email }).id);
    const refused = await exchange(sameEmail.code, sameEmail.verifier);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('email_taken');

    const strict = await createTestApp({ env: { OIDC_PROVIDERS: JSON.stringify([{ id: 'test-idp', issuer: issuer.url, client_id: 'gatehouse', client_secret: 'gatehouse-secret-at-the-test-issuer', link_by_email: false }]) } });
    try {
      const owner = await strict.signUp();
      await strict.confirmEmail(owner.id);
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({ redirect_uri: WEB_REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' });
      const providerUrl = String((await strict.request({ method: 'GET', url: `/v1/auth/oidc/test-idp/authorize?${query}` })).headers.location);
      const callback = await signInAtProvider(providerUrl, person({ email: owner.email }).id);
      const code = new URL(String((await strict.request({ method: 'GET', url: onGatehouse(callback) })).headers.location)).searchParams.get('code');
      const res = await strict.request({ method: 'POST', url: '/v1/auth/oidc/token', payload: { code, code_verifier: verifier } });
      expect(res.json().code).toBe('email_taken');
    } finally {
      await strict.close();
    }
  });

  it('keeps the last way in under concurrent removals: two providers unlinked at once, then the passkey', async () => {
    const someone = person();
    const made = await providerSignIn(someone.id);
    const token = (await exchange(made.code, made.verifier)).json().access_token;
    // A second provider account linked to the same Gatehouse account.
    const second = await providerSignIn(person().id);
    expect((await t.request({ method: 'POST', url: '/v1/users/me/identities', headers: bearer(token), payload: { code: second.code, code_verifier: second.verifier } })).statusCode).toBe(201);
    const ids = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(token) })).json().data.map((i: { id: string }) => i.id);
    const answers = await Promise.all(ids.map((id: string) => t.request({ method: 'DELETE', url: `/v1/users/me/identities/${id}`, headers: bearer(token) })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409]);
    expect((await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(token) })).json().data).toHaveLength(1);

    // A passkey instead (no password: the recent sign-in confirms it); then the provider may go, the passkey may not.
    const options = (await t.request({ method: 'POST', url: '/v1/users/me/passkeys/options', headers: bearer(token), payload: {} })).json();
    const authenticator = new SoftAuthenticator(PUBLIC_URL);
    const passkey = await t.request({ method: 'POST', url: '/v1/users/me/passkeys', headers: bearer(token), payload: { challenge_id: options.challenge_id, credential: authenticator.create(options.options) } });
    expect(passkey.statusCode, passkey.body).toBe(201);
    const [left] = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(token) })).json().data;
    expect((await t.request({ method: 'DELETE', url: `/v1/users/me/identities/${left.id}`, headers: bearer(token) })).statusCode).toBe(204);
    const lastPasskey = await t.request({ method: 'DELETE', url: `/v1/users/me/passkeys/${passkey.json().id}`, headers: bearer(token) });
    expect(lastPasskey.statusCode).toBe(409);
    expect(lastPasskey.json().detail).toContain('only way into the account');
  });

  it('never creates or links an account from an unverified email', async () => {
    const unverified = person({ email_verified: false });
    const { code, verifier } = await providerSignIn(unverified.id);
    const res = await exchange(code, verifier);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('email_not_verified');

    // A password account whose address was never confirmed is not handed to the provider's person…
    const registered = await t.register();
    const sameEmail = person({ email: registered.email });
    const refused = await providerSignIn(sameEmail.id);
    expect((await exchange(refused.code, refused.verifier)).json().code).toBe('email_taken');
    // …but once confirmed, the verified email links them (and the owner is told).
    await sql`update users set email_verified = 1 where id = ${registered.id}`.execute(t.deps.database.db);
    const linked = await providerSignIn(sameEmail.id);
    const tokens = (await exchange(linked.code, linked.verifier)).json();
    expect(decodeJwt(tokens.access_token).sub).toBe(registered.id);
    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(tokens.access_token) })).json();
    expect(log.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['identity_linked', 'sign_in']));
  });

  it('a provider address obeys the rules of registration: a look-alike that lower-cases to ASCII (KELVIN SIGN) is no address', async () => {
    const owners = uniqueEmail().replace(/^user/, 'kuser');
    const lookAlike = `\u212A${owners.slice(1)}`;
    expect(lookAlike.toLowerCase()).toBe(owners);
    const attacker = await providerSignIn(person({ email: lookAlike }).id);
    const refused = await exchange(attacker.code, attacker.verifier);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('email_not_verified');
    // The real owner of the ASCII address still registers it.
    const registered = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: owners, password: STRONG_PASSWORD, name: 'Owner' } });
    expect(registered.statusCode, registered.body).toBe(201);
  });

  it('links by email only to an account whose stored address is the same address (not one folded onto it)', async () => {
    // An account stored before provider addresses were checked: a look-alike address folded to ASCII.
    const owners = uniqueEmail().replace(/^user/, 'kuser');
    const squatted = await t.signUp();
    await sql`update users set email = ${`\u212A${owners.slice(1)}`}, email_normalized = ${owners}, email_verified = 1 where id = ${squatted.id}`.execute(t.deps.database.db);
    // The owner's first sign-in through a trusted provider must not land in it.
    const owner = await providerSignIn(person({ email: owners }).id);
    const res = await exchange(owner.code, owner.verifier);
    expect(res.json().code).toBe('email_taken');
    expect(await t.deps.database.db.selectFrom('identities').select('id').where('user_id', '=', squatted.id).execute()).toEqual([]);
  });

  it('links from settings with the password, refuses another account, and never unlinks the last way in', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const someone = person();
    const first = await providerSignIn(someone.id);
    const noPassword = await t.request({ method: 'POST', url: '/v1/users/me/identities', headers: bearer(token), payload: { code: first.code, code_verifier: first.verifier } });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().errors[0]).toMatchObject({ field: '/password', code: 'required' });
    const linked = await t.request({ method: 'POST', url: '/v1/users/me/identities', headers: bearer(token), payload: { code: first.code, code_verifier: first.verifier, password: STRONG_PASSWORD } });
    expect(linked.statusCode, linked.body).toBe(201);
    expect(linked.json()).toMatchObject({ id: expect.stringMatching(/^idn_/), provider: 'test-idp', email: someone.email });
    // The provider's person now signs in to this account.
    const viaProvider = await providerSignIn(someone.id);
    expect(decodeJwt((await exchange(viaProvider.code, viaProvider.verifier)).json().access_token).sub).toBe(user.id);

    const other = await t.signUp();

    await t.confirmEmail(other.id);
    const again = await providerSignIn(someone.id);
    const taken = await t.request({ method: 'POST', url: '/v1/users/me/identities', headers: bearer(other.tokens.access_token), payload: { code: again.code, code_verifier: again.verifier, password: STRONG_PASSWORD } });
    expect(taken.statusCode).toBe(409);

    // A password account may unlink; a provider-only account may not unlink its only way in.
    const unlinked = await t.request({ method: 'DELETE', url: `/v1/users/me/identities/${linked.json().id}`, headers: bearer(token) });
    expect(unlinked.statusCode).toBe(204);
    const onlyProvider = person();
    const made = await providerSignIn(onlyProvider.id);
    const ownToken = (await exchange(made.code, made.verifier)).json().access_token;
    const [identity] = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(ownToken) })).json().data;
    const last = await t.request({ method: 'DELETE', url: `/v1/users/me/identities/${identity.id}`, headers: bearer(ownToken) });
    expect(last.statusCode).toBe(409);
    const events = await t.deps.database.db.selectFrom('events').select('type').where('org_id', '=', await t.personalOrgId(user.id)).execute();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['user.identity.linked', 'user.identity.unlinked']));
  });

  /** A confirmed account with TOTP on, and its current code. */
  async function confirmedOwnerWithTotp() {
    const owner = await t.signUp();
    await t.confirmEmail(owner.id);
    const enrol = await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(owner.tokens.access_token), payload: { password: owner.password } });
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(enrol.json().secret) });
    const code = () => totp.generate({ timestamp: t.clock.now() });
    expect((await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(owner.tokens.access_token), payload: { code: code() } })).statusCode).toBe(200);
    return { owner, code };
  }

  it('links by email to an account with TOTP only once the second factor is proved (stored and mailed then, not at the 403)', async () => {
    const { owner, code } = await confirmedOwnerWithTotp();
    t.clock.advance(30_000);
    const linkedIdentities = () => t.deps.database.db.selectFrom('identities').select('id').where('user_id', '=', owner.id).execute();
    const linkMails = () => t.logs.filter((line) => line.includes(owner.email) && line.includes('was linked'));

    const signIn = await providerSignIn(person({ email: owner.email }).id);
    const challenged = await exchange(signIn.code, signIn.verifier);
    expect(challenged.statusCode).toBe(403);
    expect(challenged.json().code).toBe('mfa_required');
    // No way in was added without the factor, and the owner was told of nothing that did not happen.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await linkedIdentities()).toEqual([]);
    expect(linkMails()).toEqual([]);
    const wrong = await t.request({ method: 'POST', url: '/v1/auth/mfa/verify', payload: { mfa_token: challenged.json().mfa_token, code: '000000' } });
    expect(wrong.statusCode).toBe(401);
    expect(await linkedIdentities()).toEqual([]);

    const verified = await t.request({ method: 'POST', url: '/v1/auth/mfa/verify', payload: { mfa_token: challenged.json().mfa_token, code: code() } });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(decodeJwt(verified.json().access_token)).toMatchObject({ sub: owner.id, amr: ['oidc', 'otp'] });
    expect(await linkedIdentities()).toHaveLength(1);
    await expect.poll(() => linkMails().length).toBe(1);
    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(verified.json().access_token) })).json();
    expect(log.data.map((e: { type: string }) => e.type)).toContain('identity_linked');
  });

  it('a link by email held back for the second factor is not made if the account stopped allowing it meanwhile (address changed, or made admin): the sign-in completes without it', async () => {
    const { owner, code } = await confirmedOwnerWithTotp();
    const linkedIdentities = () => t.deps.database.db.selectFrom('identities').select('id').where('user_id', '=', owner.id).execute();
    const challenge = async () => {
      const signIn = await providerSignIn(person({ email: owner.email }).id);
      const challenged = await exchange(signIn.code, signIn.verifier);
      expect(challenged.json().code).toBe('mfa_required');
      return challenged.json().mfa_token as string;
    };
    const prove = async (mfaToken: string) => {
      t.clock.advance(30_000);
      const verified = await t.request({ method: 'POST', url: '/v1/auth/mfa/verify', payload: { mfa_token: mfaToken, code: code() } });
      expect(verified.statusCode, verified.body).toBe(200);
      expect(decodeJwt(verified.json().access_token).sub).toBe(owner.id);
    };

    // The account's address changed between the challenge and the factor.
    const first = await challenge();
    await t.deps.database.db.updateTable('users').set({ email: `moved-${owner.email}`, email_normalized: `moved-${owner.email}`.toLowerCase() }).where('id', '=', owner.id).execute();
    await prove(first);
    expect(await linkedIdentities()).toEqual([]);
    await t.deps.database.db.updateTable('users').set({ email: owner.email, email_normalized: owner.email.toLowerCase() }).where('id', '=', owner.id).execute();

    // The account became an admin's meanwhile.
    const second = await challenge();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', owner.id).execute();
    await t.deps.accounts.changed(owner.id);
    await prove(second);
    expect(await linkedIdentities()).toEqual([]);
  });

  it('asks for the second factor after a provider sign-in when TOTP is on (amr oidc otp)', async () => {
    const someone = person();
    const made = await providerSignIn(someone.id);
    const token = (await exchange(made.code, made.verifier)).json().access_token;
    const enrol = await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(token), payload: {} });
    expect(enrol.statusCode, enrol.body).toBe(200);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(enrol.json().secret) });
    const now = () => totp.generate({ timestamp: t.clock.now() });
    expect((await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(token), payload: { code: now() } })).statusCode).toBe(200);
    t.clock.advance(30_000);

    const next = await providerSignIn(someone.id);
    const challenged = await exchange(next.code, next.verifier);
    expect(challenged.statusCode).toBe(403);
    expect(challenged.json()).toMatchObject({ code: 'mfa_required', mfa_token: expect.stringMatching(/^gthm_/) });
    const verified = await t.request({ method: 'POST', url: '/v1/auth/mfa/verify', payload: { mfa_token: challenged.json().mfa_token, code: now() } });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(decodeJwt(verified.json().access_token).amr).toEqual(['oidc', 'otp']);
  });
});
