/**
 * Passwordless sign-in by mail, through a real SMTP inbox: the code and the link, accounts found
 * and made, the second factor, the limits on mails and guesses, and an address squatted before
 * its owner proved it.
 */
import * as OTPAuth from 'otpauth';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail, type ReceivedMail } from '../smtp-inbox.js';

describe(`passwordless sign-in (${dialect})`, () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  let t: TestApp;
  let ip = 0;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, LOGIN_MAX_FAILURES: '3' } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  /** Each test from an address of its own, so the per-IP limits of one never meet another's. */
  const nextIp = () => `10.9.0.${++ip}`;
  const post = (url: string, payload: unknown, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url, payload: payload as Record<string, unknown>, remoteAddress, headers });
  const codeOf = (mail: ReceivedMail) => /sign-in code is (\d{6})\./.exec(mail.text)![1]!;
  const me = async (token: string) => (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) })).json();

  async function mailedCode(email: string, from: string, count = 1) {
    const started = await post('/v1/auth/passwordless/start', { email }, from);
    expect(started.statusCode, started.body).toBe(202);
    const mail = await inbox.waitFor(email, /sign-in code/, count);
    return { mail, code: codeOf(mail), token: tokenFromMail(mail, 'sign-in') };
  }

  it('answers 202 alike for known and unknown addresses, makes a confirmed account from the code, and says how in amr', async () => {
    const from = nextIp();
    const known = await t.signUp();
    const unknown = uniqueEmail();
    const [a, b] = await Promise.all([
      post('/v1/auth/passwordless/start', { email: known.email }, from),
      post('/v1/auth/passwordless/start', { email: unknown }, from),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    expect(a.json()).toEqual(b.json());

    const mail = await inbox.waitFor(unknown, /sign-in code/);
    expect(mail.subject).toMatch(/^\d{6} is your Gatehouse sign-in code$/);
    expect(mail.text).toContain('http://gatehouse.test/sign-in?token=gths_');
    expect(mail.html).toContain(codeOf(mail));
    const verified = await post('/v1/auth/passwordless/verify', { email: unknown.toUpperCase(), code: codeOf(mail) }, from);
    expect(verified.statusCode, verified.body).toBe(200);
    expect(decodeJwt(verified.json().access_token).amr).toEqual(['email_code']);
    const account = await me(verified.json().access_token);
    expect(account).toMatchObject({ email: unknown, email_verified: true });

    // The known address signs in to its own account, by the link of its second mail this time.
    const { token } = await mailedCode(known.email, from, 2);
    const byLink = await post('/v1/auth/passwordless/verify', { token }, from);
    expect(byLink.statusCode, byLink.body).toBe(200);
    expect(decodeJwt(byLink.json().access_token).amr).toEqual(['email_link']);
    expect((await me(byLink.json().access_token)).id).toBe(known.id);
    // A link works once; so does the code it came with.
    expect((await post('/v1/auth/passwordless/verify', { token }, from)).json().code).toBe('invalid_token');
  });

  it('mails nothing to an address without an account when create_account is false', async () => {
    const from = nextIp();
    const stranger = uniqueEmail();
    const started = await post('/v1/auth/passwordless/start', { email: stranger, create_account: false }, from);
    expect(started.statusCode).toBe(202);
    // A mail sent after it arrives; by then the first would have too.
    const known = await t.signUp();
    await post('/v1/auth/passwordless/start', { email: known.email, create_account: false }, from);
    await inbox.waitFor(known.email, /sign-in code/);
    expect(inbox.mails.filter((m) => m.to === stranger)).toEqual([]);
  });

  it('retires the older code when a new one is asked for, and a code after 10 minutes', async () => {
    const from = nextIp();
    const email = uniqueEmail();
    const first = await mailedCode(email, from);
    const second = await mailedCode(email, from, 2);
    const old = await post('/v1/auth/passwordless/verify', { email, code: first.code }, from);
    if (first.code !== second.code) expect(old.json().code).toBe('invalid_credentials');
    expect((await post('/v1/auth/passwordless/verify', { token: first.token }, from)).json().code).toBe('invalid_token');

    t.clock.advance(601_000);
    expect((await post('/v1/auth/passwordless/verify', { email, code: second.code }, from)).json().code).toBe('invalid_credentials');
    expect((await post('/v1/auth/passwordless/verify', { token: second.token }, from)).json().code).toBe('invalid_token');
  });

  it('counts wrong codes before checking them: a burst of guesses gets no more checks than the limit', async () => {
    const from = nextIp();
    const email = uniqueEmail();
    const { code } = await mailedCode(email, from);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/v1/auth/passwordless/verify', { email, code: wrong }, from)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(17);
    expect(answers.find((a) => a.statusCode === 429)!.json().code).toBe('too_many_attempts');
    // The address is locked for the window, whoever asks, even with the right code.
    expect((await post('/v1/auth/passwordless/verify', { email, code }, nextIp())).statusCode).toBe(429);
  });

  it('retires a code after 5 wrong guesses from anywhere', async () => {
    // A server whose per-address bucket (10) outlasts the code's own 5 guesses.
    const roomy = await createTestApp({ env: { SMTP_URL: inbox.url, LOGIN_MAX_FAILURES: '10' } });
    try {
      const email = uniqueEmail();
      const send = (payload: unknown) => roomy.request({ method: 'POST', url: '/v1/auth/passwordless/verify', payload: payload as Record<string, unknown>, remoteAddress: nextIp() });
      expect((await roomy.request({ method: 'POST', url: '/v1/auth/passwordless/start', payload: { email }, remoteAddress: nextIp() })).statusCode).toBe(202);
      const code = codeOf(await inbox.waitFor(email, /sign-in code/));
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      for (let i = 0; i < 5; i++) expect((await send({ email, code: wrong })).statusCode).toBe(401);
      expect((await send({ email, code })).json().code).toBe('invalid_credentials');
    } finally {
      await roomy.close();
    }
  });

  it('limits mails per address', async () => {
    const email = uniqueEmail();
    for (let i = 0; i < 5; i++) expect((await post('/v1/auth/passwordless/start', { email }, nextIp())).statusCode).toBe(202);
    const sixth = await post('/v1/auth/passwordless/start', { email }, nextIp());
    expect(sixth.statusCode).toBe(429);
    expect(sixth.headers['retry-after']).toBeDefined();
  });

  it('asks for the second factor when the account has one, and carries both in amr', async () => {
    const from = nextIp();
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const token = user.tokens.access_token;
    const enrol = (await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(token), payload: { password: user.password } })).json();
    const totp = OTPAuth.URI.parse(enrol.otpauth_url) as OTPAuth.TOTP;
    await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(token), payload: { code: totp.generate({ timestamp: t.clock.now() }) } });
    t.clock.advance(30_000);

    const { code } = await mailedCode(user.email, from);
    const step = await post('/v1/auth/passwordless/verify', { email: user.email, code }, from);
    expect(step.statusCode).toBe(403);
    expect(step.json().code).toBe('mfa_required');
    const done = await post('/v1/auth/mfa/verify', { mfa_token: step.json().mfa_token, code: totp.generate({ timestamp: t.clock.now() }) }, from);
    expect(done.statusCode, done.body).toBe(200);
    expect(decodeJwt(done.json().access_token).amr).toEqual(['email_code', 'otp']);
  });

  it("takes back an address a squatter registered first: the squatter's password and sessions go", async () => {
    const from = nextIp();
    const email = uniqueEmail();
    const squatter = await t.signUp({ email });
    const { code } = await mailedCode(email, from);
    const owner = await post('/v1/auth/passwordless/verify', { email, code }, from);
    expect(owner.statusCode, owner.body).toBe(200);
    expect(await me(owner.json().access_token)).toMatchObject({ id: squatter.id, email_verified: true });
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(squatter.tokens.access_token) })).statusCode).toBe(401);
    expect((await post('/v1/auth/login', { username: email, password: STRONG_PASSWORD }, nextIp())).statusCode).toBe(401);
  });

  it('refuses a body that is neither a code nor a link, and a disabled account', async () => {
    const from = nextIp();
    const bad = [
      { email: 'a@example.com' },
      { code: '123456' },
      { email: 'a@example.com', code: '12345' },
      { token: 'gths_x', code: '123456' },
      {},
    ];
    for (const body of bad) {
      const res = await post('/v1/auth/passwordless/verify', body, from);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    expect((await post('/v1/auth/passwordless/verify', { token: 'not-a-link' }, from)).json().code).toBe('invalid_token');
    expect((await post('/v1/auth/passwordless/start', { email: 'not an address' }, from)).statusCode).toBe(400);
  });
});
