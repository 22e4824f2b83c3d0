import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, uniqueEmail, type TestApp } from '../harness.js';
import { startGitHubStandIn, type GitHubStandIn } from '../github-stand-in.js';

const REDIRECT = 'http://gatehouse.test/oidc-callback';

/** Sign-in with GitHub (OAuth 2 and its REST API, no ID token), against a GitHub-shaped server on loopback. */
describe(`sign-in with GitHub (${dialect})`, () => {
  let t: TestApp;
  let github: GitHubStandIn;
  beforeAll(async () => {
    github = await startGitHubStandIn({ id: 'Iv1.gatehouse', secret: 'github-client-secret' });
    t = await createTestApp({ env: { OIDC_PROVIDERS: JSON.stringify([{ id: 'github', type: 'github', issuer: github.url, client_id: 'Iv1.gatehouse', client_secret: 'github-client-secret' }]) } });
  });
  afterAll(async () => {
    await t.close();
    await github.close();
  });

  async function signIn(login: string) {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({ redirect_uri: REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
    const started = await t.request({ method: 'GET', url: `/v1/auth/oidc/github/authorize?${query}` });
    expect(started.statusCode, started.body).toBe(302);
    const provider = new URL(String(started.headers.location));
    expect(provider.searchParams.get('scope')).toBe('read:user user:email');
    expect(provider.searchParams.has('nonce')).toBe(false); // OAuth 2: no ID token to bind it to
    const callback = new URL(github.approve(provider.toString(), login));
    const back = await t.request({ method: 'GET', url: callback.pathname + callback.search });
    const code = new URL(String(back.headers.location)).searchParams;
    return { code, exchange: () => t.request({ method: 'POST', url: '/v1/auth/oidc/token', payload: { code: code.get('code'), code_verifier: verifier } }) };
  }

  it('lists GitHub as a provider of type github', async () => {
    expect((await t.request({ method: 'GET', url: '/v1/auth/providers' })).json().data).toEqual([{ id: 'github', name: 'GitHub', type: 'github', web: true, native: false }]);
  });

  it('signs in with the primary verified address, the name or else the login, and the numeric id as the identity', async () => {
    const email = uniqueEmail();
    github.users.set('octo', { id: 583231, login: 'octo', name: null, emails: [{ email: `other.${email}`, primary: false, verified: true }, { email, primary: true, verified: true }] });
    const { exchange } = await signIn('octo');
    const tokens = await exchange();
    expect(tokens.statusCode, tokens.body).toBe(200);
    const token = tokens.json().access_token;
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) })).json()).toMatchObject({ email, name: 'octo', email_verified: true });
    const [identity] = (await t.request({ method: 'GET', url: '/v1/users/me/identities', headers: bearer(token) })).json().data;
    expect(identity).toMatchObject({ provider: 'github', provider_name: 'GitHub', email });
    const row = await t.deps.database.db.selectFrom('identities').select('subject').where('id', '=', identity.id).executeTakeFirstOrThrow();
    expect(row.subject).toBe('583231');
  });

  it('refuses an account whose primary address GitHub has not verified', async () => {
    github.users.set('unverified', { id: 9001, login: 'unverified', name: 'Un Verified', emails: [{ email: uniqueEmail(), primary: true, verified: false }, { email: uniqueEmail(), primary: false, verified: true }] });
    const res = await (await signIn('unverified')).exchange();
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('email_not_verified');
  });

  it('reports a code GitHub refuses (used twice) as provider_error, never a 500', async () => {
    github.users.set('replay', { id: 77, login: 'replay', name: 'Re Play', emails: [{ email: uniqueEmail(), primary: true, verified: true }] });
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({ redirect_uri: REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
    const provider = String((await t.request({ method: 'GET', url: `/v1/auth/oidc/github/authorize?${query}` })).headers.location);
    const callback = new URL(github.approve(provider, 'replay'));
    // The code goes to GitHub's token endpoint once (by someone else first): Gatehouse's try fails.
    await fetch(`${github.url}/login/oauth/access_token`, { method: 'POST', body: new URLSearchParams({ client_id: 'x', client_secret: 'y', code: callback.searchParams.get('code')! }) });
    const back = await t.request({ method: 'GET', url: callback.pathname + callback.search });
    expect(back.statusCode).toBe(302);
    expect(new URL(String(back.headers.location)).searchParams.get('error')).toBe('provider_error');
  });
});
