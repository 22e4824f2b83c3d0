import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';
import { startTestIssuer, type TestIssuer } from '../oidc-issuer.js';
import { signInAtProvider } from '../provider-browser.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

const PUBLIC_URL = 'http://gatehouse.test';
const CALLBACK = `${PUBLIC_URL}/v1/auth/oidc/tenant-idp/callback`;
const WEB_REDIRECT = `${PUBLIC_URL}/oidc-callback`;
const NEW_PASSWORD = 'Amber-Falcon-Harbor-88';

/**
 * A provider configured `link_by_email: false` (its users or tenants set their own addresses) is
 * not trusted for addresses (issue 31, defect 3): whoever signs in there claiming someone else's
 * address must neither hold that address confirmed, nor keep a way into the account once its real
 * owner proves the inbox. Against oidc-provider on loopback and a real SMTP inbox.
 */
describe(`addresses from a provider not trusted for them (${dialect})`, () => {
  let t: TestApp;
  let issuer: TestIssuer;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
    issuer = await startTestIssuer([{ client_id: 'gatehouse', client_secret: 'gatehouse-secret-at-the-test-issuer', redirect_uris: [CALLBACK] }]);
    t = await createTestApp({
      env: {
        SMTP_URL: inbox.url, MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>',
        OIDC_PROVIDERS: JSON.stringify([{ id: 'tenant-idp', name: 'Tenant IdP', issuer: issuer.url, client_id: 'gatehouse', client_secret: 'gatehouse-secret-at-the-test-issuer', link_by_email: false }]),
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await issuer.close();
    await inbox.close();
  });

  /** Someone at the provider who set their address to `email` (the provider says it is verified). */
  function claimant(email: string) {
    const id = `tenant-user-${randomBytes(4).toString('hex')}`;
    issuer.accounts.set(id, { id, email, email_verified: true, name: 'Claimant' });
    return id;
  }

  /** A whole provider sign-in: authorize → the provider → the callback → POST /v1/auth/oidc/token. */
  async function providerSignIn(accountId: string) {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({ redirect_uri: WEB_REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
    const started = await t.request({ method: 'GET', url: `/v1/auth/oidc/tenant-idp/authorize?${query}` });
    const callback = await signInAtProvider(String(started.headers.location), accountId);
    const finished = await t.request({ method: 'GET', url: callback.pathname + callback.search });
    const code = new URL(String(finished.headers.location)).searchParams.get('code');
    return t.request({ method: 'POST', url: '/v1/auth/oidc/token', payload: { code, code_verifier: verifier } });
  }

  it("holds a claimed address unconfirmed, and the address's owner still registers it (the registration takes it)", async () => {
    const victim = uniqueEmail();
    const attacker = claimant(victim);
    const first = await providerSignIn(attacker);
    expect(first.statusCode, first.body).toBe(200);
    const attackersToken = first.json().access_token as string;
    const attackersId = decodeJwt(attackersToken).sub!;
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(attackersToken) })).json();
    expect(me).toMatchObject({ email: victim, email_verified: false });

    const registered = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: victim, password: STRONG_PASSWORD, name: 'Victim' } });
    expect(registered.statusCode, registered.body).toBe(201);
    expect(registered.json().id).not.toBe(attackersId);
    // The provider's account gave the address up: it is no longer anyone's way to the victim's inbox.
    const after = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(attackersToken) })).json();
    expect(after.email).not.toBe(victim);
    expect(after.email).toMatch(/\.invalid$/);
    // Nothing is mailed to the reserved address: asking for a verification mail is refused.
    const resend = await t.request({ method: 'POST', url: '/v1/users/me/email/verification', headers: bearer(attackersToken) });
    expect(resend.statusCode, resend.body).toBe(409);
    expect(resend.json().detail).toContain('change of email');
    expect((await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: after.email } })).statusCode).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(inbox.mails.filter((m) => m.to === after.email)).toEqual([]);
    // The claimant still signs in, to their own account; the victim signs in to theirs.
    expect(decodeJwt((await providerSignIn(attacker)).json().access_token).sub).toBe(attackersId);
    expect(decodeJwt((await t.login(victim, STRONG_PASSWORD)).access_token).sub).toBe(registered.json().id);
  });

  /** Whether the account's address is confirmed, read from the database (no cache in the way). */
  const verified = async (userId: string) => (await t.deps.database.db.selectFrom('users').select('email_verified').where('id', '=', userId).executeTakeFirstOrThrow()).email_verified === 1;

  it("the verification mail a claimant has sent to the address's owner confirms nothing when followed signed out or as another account, and stays unspent", async () => {
    const victim = uniqueEmail();
    const made = await providerSignIn(claimant(victim));
    expect(made.statusCode, made.body).toBe(200);
    const claimantsId = decodeJwt(made.json().access_token).sub!;
    const resend = await t.request({ method: 'POST', url: '/v1/users/me/email/verification', headers: bearer(made.json().access_token) });
    expect(resend.statusCode, resend.body).toBe(202);
    const token = tokenFromMail(await inbox.waitFor(victim, /Confirm your email address/), 'verify-email');

    // The owner of the inbox clicks, signed out: that must not confirm the claimant's account.
    const signedOut = await t.request({ method: 'POST', url: '/v1/auth/email/verify', payload: { token } });
    expect(signedOut.statusCode, signedOut.body).toBe(401);
    expect(signedOut.json().code).toBe('authentication_required');
    // ...nor signed in to an account of their own.
    const other = await t.signUp();
    const asOther = await t.request({ method: 'POST', url: '/v1/auth/email/verify', headers: bearer(other.tokens.access_token), payload: { token } });
    expect(asOther.statusCode, asOther.body).toBe(403);
    expect(asOther.json().code).toBe('forbidden');
    expect(await verified(claimantsId)).toBe(false);
    // The link was not spent by either refusal: the account signed in still confirms with it.
    const owner = await t.request({ method: 'POST', url: '/v1/auth/email/verify', headers: bearer(made.json().access_token), payload: { token } });
    expect(owner.statusCode, owner.body).toBe(204);
  });

  it("the provider's real user confirms their address by following the link signed in, keeps the provider sign-in, and can accept an invitation", async () => {
    const address = uniqueEmail();
    const user = claimant(address);
    const made = await providerSignIn(user);
    expect(made.statusCode, made.body).toBe(200);
    const accessToken = made.json().access_token as string;
    const userId = decodeJwt(accessToken).sub!;
    expect((await t.request({ method: 'POST', url: '/v1/users/me/email/verification', headers: bearer(accessToken) })).statusCode).toBe(202);
    const token = tokenFromMail(await inbox.waitFor(address, /Confirm your email address/), 'verify-email');
    const confirmed = await t.request({ method: 'POST', url: '/v1/auth/email/verify', headers: bearer(accessToken), payload: { token } });
    expect(confirmed.statusCode, confirmed.body).toBe(204);
    expect(await verified(userId)).toBe(true);
    // Both proofs came from the owner (the inbox and the session): the provider identity stays.
    expect(await t.deps.database.db.selectFrom('identities').select('provider').where('user_id', '=', userId).execute()).toEqual([{ provider: 'tenant-idp' }]);
    expect(decodeJwt((await providerSignIn(user)).json().access_token).sub).toBe(userId);

    const owner = await t.signUp();
    const team = await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(owner.tokens.access_token), payload: { name: 'Provider users' } });
    expect(team.statusCode, team.body).toBe(201);
    const invited = await t.request({ method: 'POST', url: `/v1/organizations/${team.json().id}/invitations`, headers: bearer(owner.tokens.access_token), payload: { email: address, role: 'member' } });
    expect(invited.statusCode, invited.body).toBe(201);
    const invitation = tokenFromMail(await inbox.waitFor(address, /You are invited/), 'accept-invitation');
    const joined = await t.request({ method: 'POST', url: '/v1/invitations/accept', headers: bearer(accessToken), payload: { token: invitation } });
    expect(joined.statusCode, joined.body).toBe(200);
  });

  it('a password reset that proves the inbox removes the ways in added before the address was proven, and logs it', async () => {
    const victim = uniqueEmail();
    const attacker = claimant(victim);
    const made = await providerSignIn(attacker);
    expect(made.statusCode, made.body).toBe(200);
    const accountId = decodeJwt(made.json().access_token).sub!;
    // A passkey from before the address was proven (an account stored before unconfirmed accounts were kept from adding one).
    await t.deps.database.db.insertInto('passkeys').values({
      id: `pky_${randomBytes(8).toString('hex')}`, user_id: accountId, credential_id: randomBytes(16).toString('base64url'), public_key: 'AQID',
      counter: 0, transports: 'internal', device_type: 'singleDevice', backed_up: 0, name: "Claimant's key", created_at: new Date().toISOString(), last_used_at: null,
    }).execute();

    // The victim takes "their" account back through the mailed link instead of registering.
    expect((await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: victim } })).statusCode).toBe(202);
    const token = tokenFromMail(await inbox.waitFor(victim, /Reset your password/), 'reset-password');
    const reset = await t.request({ method: 'POST', url: '/v1/auth/password/reset', payload: { token, password: NEW_PASSWORD } });
    expect(reset.statusCode, reset.body).toBe(204);

    // The claimant's provider identity went with the reset: it no longer signs in to the account.
    const again = await providerSignIn(attacker);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('email_taken');
    expect(await t.deps.database.db.selectFrom('identities').select('id').where('user_id', '=', accountId).execute()).toEqual([]);
    expect(await t.deps.database.db.selectFrom('passkeys').select('id').where('user_id', '=', accountId).execute()).toEqual([]);
    // The owner reads why in the security log.
    const owner = await t.login(victim, NEW_PASSWORD);
    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(owner.access_token) })).json();
    expect(log.data).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: 'identity_unlinked', detail: expect.objectContaining({ provider: 'tenant-idp', reason: 'address_proven_by_reset' }) }),
      expect.objectContaining({ type: 'passkey_removed', detail: expect.objectContaining({ name: "Claimant's key", reason: 'address_proven_by_reset' }) }),
    ]));
  });
});
