import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt } from 'jose';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, type TestApp } from '../harness.js';
import { SoftAuthenticator } from '../soft-authenticator.js';
import { MAX_PASSKEYS } from '../../src/identity/passkeys/passkeys.service.js';

const ORIGIN = 'http://gatehouse.test'; // the harness's PUBLIC_URL: relying party gatehouse.test

/** Passkeys end to end with a software authenticator (test/soft-authenticator.ts). */
describe(`passkeys (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = (url: string, token: string | undefined, payload?: Record<string, unknown>) =>
    t.request({ method: 'POST', url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload }) });

  async function addPasskey(token: string, authenticator = new SoftAuthenticator(ORIGIN), name = 'Laptop') {
    const options = await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD });
    expect(options.statusCode, options.body).toBe(200);
    const { challenge_id, options: creation } = options.json();
    const added = await post('/v1/users/me/passkeys', token, { challenge_id, credential: authenticator.create(creation), name });
    return { added, authenticator, challenge_id, creation };
  }

  async function passkeyLogin(authenticator: SoftAuthenticator, override: Parameters<SoftAuthenticator['get']>[1] = {}) {
    const { challenge_id, options } = (await post('/v1/auth/passkey/options', undefined)).json();
    return post('/v1/auth/passkey/verify', undefined, { challenge_id, credential: authenticator.get(options, override) });
  }

  it('adds a passkey, lists and renames it, and signs in with it alone (amr webauthn)', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const options = (await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).json();
    expect(options.challenge_id).toMatch(/^gthw_/);
    expect(options.options).toMatchObject({ rp: { id: 'gatehouse.test' }, user: { name: user.email }, authenticatorSelection: { residentKey: 'required' } });

    const { added } = await addPasskey(token);
    expect(added.statusCode, added.body).toBe(201);
    const passkey = added.json();
    expect(passkey).toMatchObject({ id: expect.stringMatching(/^psk_/), name: 'Laptop', transports: ['internal'], last_used_at: null });
    expect(added.headers.location).toBe(`/v1/users/me/passkeys/${passkey.id}`);
    const authenticator = (await addPasskey(token, new SoftAuthenticator(ORIGIN), 'Phone')).authenticator;

    const list = (await t.request({ method: 'GET', url: '/v1/users/me/passkeys', headers: bearer(token) })).json();
    expect(list.data.map((p: { name: string }) => p.name)).toEqual(['Phone', 'Laptop']);
    const renamed = await t.request({ method: 'PATCH', url: `/v1/users/me/passkeys/${passkey.id}`, headers: bearer(token), payload: { name: 'Work laptop' } });
    expect(renamed.json().name).toBe('Work laptop');

    const login = await passkeyLogin(authenticator);
    expect(login.statusCode, login.body).toBe(200);
    const claims = decodeJwt(login.json().access_token);
    expect(claims).toMatchObject({ sub: user.id, amr: ['webauthn'] });
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(login.json().access_token) })).json().email).toBe(user.email);
    // Twice: the counter moves on with every use.
    expect((await passkeyLogin(authenticator)).statusCode).toBe(200);

    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(token) })).json().data;
    expect(log.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['passkey_added', 'sign_in']));
    expect(log.find((e: { type: string }) => e.type === 'sign_in').detail).toMatchObject({ method: 'passkey' });
  });

  it('refuses a spent challenge, another origin, no user verification, another attestation, another user handle, a forged signature and an unknown passkey, each without a hint', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const { authenticator, challenge_id, creation } = await addPasskey(token);
    // The registration's challenge was spent.
    const again = await post('/v1/users/me/passkeys', token, { challenge_id, credential: new SoftAuthenticator(ORIGIN).create(creation) });
    expect(again.json().errors[0]).toMatchObject({ field: '/challenge_id', code: 'invalid_value' });
    // A page on another origin asking the authenticator.
    const fresh = (await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).json();
    const phished = await post('/v1/users/me/passkeys', token, { challenge_id: fresh.challenge_id, credential: new SoftAuthenticator(ORIGIN).create(fresh.options, { origin: 'https://evil.example' }) });
    expect(phished.json().errors[0]).toMatchObject({ field: '/credential', code: 'invalid_credential' });

    // Without user verification (possession alone), or with another attestation format, or without the password.
    for (const override of [{ unverified: true }, { fmt: 'packed' }]) {
      const started = (await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).json();
      const answer = await post('/v1/users/me/passkeys', token, { challenge_id: started.challenge_id, credential: new SoftAuthenticator(ORIGIN).create(started.options, override) });
      expect(answer.json().errors[0], JSON.stringify(override)).toMatchObject({ field: '/credential', code: 'invalid_credential' });
    }
    expect((await post('/v1/users/me/passkeys/options', token, { password: 'not-the-password' })).json().errors[0]).toMatchObject({ field: '/password', code: 'incorrect_password' });

    for (const refused of [
      await passkeyLogin(authenticator, { unverified: true }),
      await passkeyLogin(authenticator, { userHandle: Buffer.from('usr_someone_else').toString('base64url') }),
      await passkeyLogin(authenticator, { origin: 'https://evil.example' }),
      await passkeyLogin(authenticator, { signWith: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey }),
      await passkeyLogin(new SoftAuthenticator(ORIGIN)),
    ]) {
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ code: 'invalid_credentials', detail: 'The passkey was not accepted: try again.' });
    }
    // A login's challenge works once: the same signed answer again is refused.
    const { challenge_id: loginChallenge, options } = (await post('/v1/auth/passkey/options', undefined)).json();
    const credential = authenticator.get(options);
    expect((await post('/v1/auth/passkey/verify', undefined, { challenge_id: loginChallenge, credential })).statusCode).toBe(200);
    expect((await post('/v1/auth/passkey/verify', undefined, { challenge_id: loginChallenge, credential })).statusCode).toBe(401);
  });

  it('refuses a credential nested too deeply with 400 too_deep, not a 500 (found by the fuzz suite)', async () => {
    const deep = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`; // as text: JSON.stringify itself would overflow
    const { challenge_id } = (await post('/v1/auth/passkey/options', undefined)).json();
    const credential = `{"id":"AA","rawId":"AA","type":"public-key","clientExtensionResults":{"nested":${deep}},"response":{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA"}}`;
    const res = await t.request({ method: 'POST', url: '/v1/auth/passkey/verify', headers: { 'content-type': 'application/json' }, payload: `{"challenge_id":"${challenge_id}","credential":${credential}}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'too_deep', field: expect.stringMatching(/^\/credential\/clientExtensionResults\/nested/) });
  });

  it('removing a passkey ends its logins; a disabled account cannot sign in with one', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const { added, authenticator } = await addPasskey(token);
    const removed = await t.request({ method: 'DELETE', url: `/v1/users/me/passkeys/${added.json().id}`, headers: bearer(token) });
    expect(removed.statusCode).toBe(204);
    // The owner hears of both changes by mail (the log mailer in tests).
    await expect.poll(() => t.logs.filter((l) => l.includes(user.email) && l.includes('A change to how you sign in')).map((l) => JSON.parse(l).mail.text).join('\n'))
      .toMatch(/A passkey \(“Laptop”\) was added[\s\S]*A passkey \(“Laptop”\) was removed/);
    expect((await passkeyLogin(authenticator)).statusCode).toBe(401);
    expect((await t.request({ method: 'DELETE', url: `/v1/users/me/passkeys/${added.json().id}`, headers: bearer(token) })).statusCode).toBe(404);

    const second = await addPasskey(token);
    await t.deps.database.db.updateTable('users').set({ disabled: 1 }).where('id', '=', user.id).execute();
    const refused = await passkeyLogin(second.authenticator);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('account_disabled');
  });

  it(`holds at most ${MAX_PASSKEYS} passkeys an account: 422 limit_reached for options and for a ceremony already started`, async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    for (let i = 0; i < MAX_PASSKEYS - 1; i++) expect((await addPasskey(token, new SoftAuthenticator(ORIGIN), `Key ${i}`)).added.statusCode).toBe(201);
    const started = (await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).json();
    expect((await addPasskey(token)).added.statusCode).toBe(201);
    expect((await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).json().code).toBe('limit_reached');
    const late = await post('/v1/users/me/passkeys', token, { challenge_id: started.challenge_id, credential: new SoftAuthenticator(ORIGIN).create(started.options) });
    expect(late.statusCode).toBe(422);
  });

  it('on an account with TOTP, adding a passkey needs a recently proved factor', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const enrol = (await post('/v1/users/me/mfa/totp', token, { password: user.password })).json();
    const code = (OTPAuth.URI.parse(enrol.otpauth_url) as OTPAuth.TOTP).generate({ timestamp: t.clock.now() });
    expect((await post('/v1/users/me/mfa/totp/confirm', token, { code })).statusCode).toBe(200);
    // The confirming session proved its factor just now.
    expect((await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD })).statusCode).toBe(200);
    t.clock.advance(601_000);
    const refused = await post('/v1/users/me/passkeys/options', token, { password: STRONG_PASSWORD });
    expect(refused.json().code).toBe('mfa_required');
  });
});
