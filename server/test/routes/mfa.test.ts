import * as OTPAuth from 'otpauth';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, type TestApp } from '../harness.js';

/**
 * TOTP and recovery codes end to end. Codes are computed by an independent implementation
 * (the otpauth library, from the otpauth:// URL the server hands out), at the test clock's time.
 */
describe(`second factors (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '5' } });
  });
  afterAll(() => t.close());

  /** Mails the log mailer wrote for `email`. */
  const mailsTo = (email: string) => t.logs.map((line) => JSON.parse(line) as { mail?: { to: string; subject: string; text: string } })
    .flatMap((entry) => (entry.mail && entry.mail.to === email ? [entry.mail] : []));

  const post = (url: string, token: string | undefined, payload?: Record<string, unknown>) =>
    t.request({ method: 'POST', url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload }) });

  /** A user with TOTP on: the authenticator (from the server's otpauth URL) and the recovery codes. */
  async function userWithTotp() {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const enrol = await post('/v1/users/me/mfa/totp', token, { password: user.password });
    expect(enrol.statusCode).toBe(200);
    const { secret, otpauth_url: url, qr_svg: svg } = enrol.json();
    const totp = OTPAuth.URI.parse(url) as OTPAuth.TOTP;
    expect(totp).toBeInstanceOf(OTPAuth.TOTP);
    expect(totp.secret.base32).toBe(secret);
    expect(totp.label).toBe(user.email);
    expect(totp.issuer).toBe('Gatehouse');
    expect(svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const code = () => totp.generate({ timestamp: t.clock.now() });
    const confirmed = await post('/v1/users/me/mfa/totp/confirm', token, { code: code() });
    expect(confirmed.statusCode).toBe(200);
    const recoveryCodes: string[] = confirmed.json().recovery_codes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // The confirming code's step is spent: the next proof needs the next step's code.
    t.clock.advance(30_000);
    return { ...user, token, code, recoveryCodes };
  }

  async function passwordStep(email: string, password = STRONG_PASSWORD) {
    const res = await post('/v1/auth/login', undefined, { username: email, password });
    expect(res.statusCode).toBe(403);
    const body = res.json();
    expect(body).toMatchObject({ code: 'mfa_required', methods: ['totp', 'recovery_code'], expires_in: 300 });
    expect(body.mfa_token).toMatch(/^gthm_/);
    return body.mfa_token as string;
  }

  it('enrolment: a wrong first code is refused and leaves TOTP off; GET shows pending, then enabled', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    expect((await t.request({ method: 'GET', url: '/v1/users/me/mfa', headers: bearer(token) })).json()).toEqual({
      totp: { status: 'disabled', enabled_at: null }, recovery_codes_remaining: 0, step_up_expires_at: null,
    });
    // The password is needed: a stolen access token alone cannot add an authenticator.
    expect((await post('/v1/users/me/mfa/totp', token, { password: 'not-the-password' })).json().errors[0]).toMatchObject({ field: '/password', code: 'incorrect_password' });
    const enrol = await post('/v1/users/me/mfa/totp', token, { password: user.password });
    const totp = OTPAuth.URI.parse(enrol.json().otpauth_url) as OTPAuth.TOTP;
    const wrong = await post('/v1/users/me/mfa/totp/confirm', token, { code: String((Number(totp.generate({ timestamp: t.clock.now() })) + 1) % 1_000_000).padStart(6, '0') });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0]).toMatchObject({ field: '/code', code: 'incorrect_code' });
    expect((await t.request({ method: 'GET', url: '/v1/users/me/mfa', headers: bearer(token) })).json().totp.status).toBe('pending');
    // Still off: the password alone signs in.
    expect((await post('/v1/auth/login', undefined, { username: user.email, password: user.password })).statusCode).toBe(200);

    const ok = await post('/v1/users/me/mfa/totp/confirm', token, { code: totp.generate({ timestamp: t.clock.now() }) });
    expect(ok.statusCode).toBe(200);
    // The owner is told by mail (the log mailer here: no SMTP_URL in tests).
    await expect.poll(() => mailsTo(user.email).map((m) => m.text).join('\n')).toContain('Two-step verification (an authenticator app) was turned on');
    expect(mailsTo(user.email).at(-1)?.subject).toBe('A change to how you sign in');
    const status = (await t.request({ method: 'GET', url: '/v1/users/me/mfa', headers: bearer(token) })).json();
    expect(status).toMatchObject({ totp: { status: 'enabled' }, recovery_codes_remaining: 10 });
    expect(Date.parse(status.step_up_expires_at)).toBe(t.clock.now() + 600_000);
    expect((await post('/v1/users/me/mfa/totp', token, { password: user.password })).statusCode).toBe(409);
  });

  it('login → 403 mfa_required → verify with a code → tokens whose amr has pwd and otp; a code is good once', async () => {
    const user = await userWithTotp();
    const mfaToken = await passwordStep(user.email);
    const code = user.code();
    const verified = await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code });
    expect(verified.statusCode).toBe(200);
    const tokens = verified.json();
    expect(decodeJwt(tokens.access_token).amr).toEqual(['pwd', 'otp']);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) })).statusCode).toBe(200);
    // Refreshed tokens keep the session's amr.
    const refreshed = await post('/v1/auth/refresh', undefined, { refresh_token: tokens.refresh_token });
    expect(decodeJwt(refreshed.json().access_token).amr).toEqual(['pwd', 'otp']);

    // The mfa_token was spent.
    expect((await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code })).json().code).toBe('invalid_token');
    // The same code again, in a new login within its window: refused.
    const again = await passwordStep(user.email);
    const reused = await post('/v1/auth/mfa/verify', undefined, { mfa_token: again, code });
    expect(reused.statusCode).toBe(401);
    expect(reused.json().code).toBe('invalid_credentials');
    // A mistyped code leaves the challenge usable: the next step's code completes it.
    t.clock.advance(30_000);
    expect((await post('/v1/auth/mfa/verify', undefined, { mfa_token: again, code: user.code() })).statusCode).toBe(200);
    // A password-only token (an earlier session) says so.
    expect(decodeJwt(user.tokens.access_token).amr).toEqual(['pwd']);
  });

  it('recovery codes work once each, in any case and spacing; the mfa_token expires after 5 minutes', async () => {
    const user = await userWithTotp();
    const [first, second] = user.recoveryCodes;
    const used = await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), recovery_code: ` ${first!.toUpperCase()} ` });
    expect(used.statusCode).toBe(200);
    expect(decodeJwt(used.json().access_token).amr).toEqual(['pwd', 'otp']);
    const reused = await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), recovery_code: first });
    expect(reused.statusCode).toBe(401);
    const status = await t.request({ method: 'GET', url: '/v1/users/me/mfa', headers: bearer(used.json().access_token) });
    expect(status.json().recovery_codes_remaining).toBe(9);

    const late = await passwordStep(user.email);
    t.clock.advance(301_000);
    const expired = await post('/v1/auth/mfa/verify', undefined, { mfa_token: late, recovery_code: second });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('invalid_token');

    const log = await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(used.json().access_token) });
    const types = log.json().data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['mfa_enabled', 'recovery_code_used', 'mfa_failed', 'sign_in']));
  });

  it('step-up: creating an API key or changing the password needs a factor proved within MFA_STEP_UP_SECONDS', async () => {
    const user = await userWithTotp();
    const session = (await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), code: user.code() })).json().access_token;
    expect((await post('/v1/api-keys', session, { name: 'fresh' })).statusCode).toBe(201);

    t.clock.advance(601_000);
    const refused = await post('/v1/api-keys', session, { name: 'stale' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'mfa_required', methods: ['totp', 'recovery_code'], step_up_seconds: 600 });
    const password = await post('/v1/users/me/password', session, { current_password: user.password, new_password: 'Another-Vivid-Otter-77' });
    expect(password.json().code).toBe('mfa_required');
    // A session from before the factor was on (the sign-up's login) never proved one.
    expect((await post('/v1/api-keys', user.token, { name: 'old session' })).json().code).toBe('mfa_required');

    const stepUp = await post('/v1/users/me/mfa/step-up', session, { code: user.code() });
    expect(stepUp.statusCode).toBe(200);
    expect(Date.parse(stepUp.json().step_up_expires_at)).toBe(t.clock.now() + 600_000);
    expect((await post('/v1/api-keys', session, { name: 'after step-up' })).statusCode).toBe(201);
    const renewed = await post('/v1/users/me/mfa/recovery-codes', session);
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json().recovery_codes).toHaveLength(10);
    // The old set is gone with the renewal.
    expect((await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), recovery_code: user.recoveryCodes[5] })).statusCode).toBe(401);
  });

  it('turning TOTP off: with the password only inside the step-up window, with a code at any time', async () => {
    const user = await userWithTotp();
    t.clock.advance(601_000);
    const withPassword = await t.request({ method: 'DELETE', url: '/v1/users/me/mfa/totp', headers: bearer(user.token), payload: { password: user.password } });
    expect(withPassword.json().code).toBe('mfa_required');
    const both = await t.request({ method: 'DELETE', url: '/v1/users/me/mfa/totp', headers: bearer(user.token), payload: { password: user.password, code: user.code() } });
    expect(both.statusCode).toBe(400);
    const withCode = await t.request({ method: 'DELETE', url: '/v1/users/me/mfa/totp', headers: bearer(user.token), payload: { code: user.code() } });
    expect(withCode.statusCode).toBe(204);
    expect((await post('/v1/auth/login', undefined, { username: user.email, password: user.password })).statusCode).toBe(200);
    expect((await post('/v1/api-keys', user.token, { name: 'no factor, no step-up' })).statusCode).toBe(201);
    expect((await t.request({ method: 'DELETE', url: '/v1/users/me/mfa/totp', headers: bearer(user.token), payload: { code: '123456' } })).statusCode).toBe(404);
  });

  it('a pending enrolment is dropped without a code; deleting the account and the admin API need the factor too', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    await post('/v1/users/me/mfa/totp', user.tokens.access_token, { password: user.password });
    const drop = await t.request({ method: 'DELETE', url: '/v1/users/me/mfa/totp', headers: bearer(user.tokens.access_token), payload: { password: user.password } });
    expect(drop.statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: '/v1/users/me/mfa', headers: bearer(user.tokens.access_token) })).json().totp.status).toBe('disabled');

    const owner = await userWithTotp();
    const older = (await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(owner.email), code: owner.code() })).json().access_token;
    t.clock.advance(601_000);
    const deletion = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(older), payload: { password: owner.password } });
    expect(deletion.json().code).toBe('mfa_required');
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(older) })).statusCode).toBe(200);

    // An admin with a factor: changing another account needs it proved recently too.
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', owner.id).execute();
    await t.deps.accounts.changed(owner.id);
    const target = await t.register();
    const change = await t.request({ method: 'PATCH', url: `/v1/admin/users/${target.id}`, headers: bearer(older), payload: { disabled: true } });
    expect(change.json().code).toBe('mfa_required');
    expect((await post('/v1/users/me/mfa/step-up', older, { code: owner.code() })).statusCode).toBe(200);
    expect((await t.request({ method: 'PATCH', url: `/v1/admin/users/${target.id}`, headers: bearer(older), payload: { disabled: true } })).statusCode).toBe(200);
  });

  it('a deletion scheduled with the factor is restored by a sign-in that proves it, not by the password alone', async () => {
    const owner = await userWithTotp();
    const fresh = (await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(owner.email), code: owner.code() })).json().access_token;
    const scheduled = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(fresh), payload: { password: owner.password } });
    expect(scheduled.statusCode, scheduled.body).toBe(202);
    const dueAt = async () => (await t.deps.database.db.selectFrom('users').select('deletion_due_at').where('id', '=', owner.id).executeTakeFirstOrThrow()).deletion_due_at;
    expect(await dueAt()).not.toBeNull();
    t.clock.advance(30_000);

    // The password step hands out an mfa_token and nothing else: the deletion stands.
    const mfaToken = await passwordStep(owner.email);
    expect(await dueAt()).not.toBeNull();
    const wrong = await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code: String((Number(owner.code()) + 1) % 1_000_000).padStart(6, '0') });
    expect(wrong.statusCode).toBe(401);
    expect(await dueAt()).not.toBeNull();

    const verified = await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code: owner.code() });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await dueAt()).toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(verified.json().access_token) })).statusCode).toBe(200);
    expect(mailsTo(owner.email).some((mail) => mail.subject === 'Your account was restored')).toBe(true);
  });

  it('a signed token whose amr is not a list of strings is refused; one without amr reads as a password login', async () => {
    const { tokens } = await t.signUp();
    const claims = decodeJwt(tokens.access_token);
    const { kid, privateKey } = t.deps.keyRing.current();
    const signed = (amr: unknown) => {
      const { amr: _drop, ...rest } = claims;
      return new SignJWT(amr === undefined ? rest : { ...rest, amr }).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).sign(privateKey);
    };
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(await signed('pwd otp')) })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(await signed(['pwd', 7])) })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(await signed(undefined)) })).statusCode).toBe(200);
  });

  it('wrong codes are throttled per account like passwords', async () => {
    const user = await userWithTotp();
    const mfaToken = await passwordStep(user.email);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code: '000000' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const right = await post('/v1/auth/mfa/verify', undefined, { mfa_token: mfaToken, code: user.code() });
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a pending enrolment\'s first code is throttled like the other code checks, counted before the check', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const enrol = await post('/v1/users/me/mfa/totp', token, { password: user.password });
    const totp = OTPAuth.URI.parse(enrol.json().otpauth_url) as OTPAuth.TOTP;
    const right = totp.generate({ timestamp: t.clock.now() });
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    // A thief guessing at once: no more than LOGIN_MAX_FAILURES (5) guesses reach the check.
    const guesses = await Promise.all(Array.from({ length: 8 }, () => post('/v1/users/me/mfa/totp/confirm', token, { code: wrong })));
    expect(guesses.map((g) => g.statusCode).sort()).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    const late = await post('/v1/users/me/mfa/totp/confirm', token, { code: right });
    expect(late.statusCode).toBe(429);
    expect(late.json().code).toBe('too_many_attempts');
    expect(late.json().recovery_codes).toBeUndefined();
  });

  it('wrong step-up codes have their own bucket: a stolen token cannot lock its owner out of signing in', async () => {
    const user = await userWithTotp();
    const session = (await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), code: user.code() })).json().access_token;
    t.clock.advance(30_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post('/v1/users/me/mfa/step-up', session, { code: '000000' })).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    // The owner still signs in with their code.
    const signedIn = await post('/v1/auth/mfa/verify', undefined, { mfa_token: await passwordStep(user.email), code: user.code() });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
  });

  it('refuses a body with neither or both kinds of code, and a token of another shape', async () => {
    const neither = await post('/v1/auth/mfa/verify', undefined, { mfa_token: 'gthm_x' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().errors[0]).toMatchObject({ field: '/code', code: 'required' });
    const both = await post('/v1/auth/mfa/verify', undefined, { mfa_token: 'gthm_x', code: '123456', recovery_code: 'abcde-fghij' });
    expect(both.json().errors[0]).toMatchObject({ field: '/recovery_code', code: 'one_of' });
    expect((await post('/v1/auth/mfa/verify', undefined, { mfa_token: 'not-a-token', code: '123456' })).json().code).toBe('invalid_token');
  });
});
