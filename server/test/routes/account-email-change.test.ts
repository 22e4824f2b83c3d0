import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

/**
 * POST /v1/users/me/email over real SMTP: the link goes to the NEW address, nothing changes until
 * it is followed (POST /v1/auth/email/verify) by the account's owner, signed in, then the old
 * address is told. Whoever else holds the link (a mistyped address's inbox) cannot use it, nor
 * spend it.
 */
describe(`changing the sign-in email (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  const change = (token: string, payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/v1/users/me/email', headers: bearer(token), payload });
  /** Follows a mailed link, with `headers` (the session: `bearer(access token)`) or without any. */
  const verify = (token: string, headers: Record<string, string> = {}) => t.request({ method: 'POST', url: '/v1/auth/email/verify', headers, payload: { token } });
  const login = (username: string, password: string) => t.request({ method: 'POST', url: '/v1/auth/login', payload: { username, password } });
  const linkTo = async (to: string, count = 1) => tokenFromMail(await inbox.waitFor(to, /Confirm your new email/, count), 'verify-email');

  it('a changed email must be verified before login uses it; the old address is told, and stops signing in', async () => {
    const user = await t.signUp();
    const next = uniqueEmail();
    const res = await change(user.tokens.access_token, { email: next, password: user.password });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ pending_email: next });

    const token = await linkTo(next);
    expect(token).toMatch(/^gthv_/);
    // Until the link is followed nothing changed: the old address signs in, the new one does not.
    expect((await login(next, user.password)).statusCode).toBe(401);
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).json().email).toBe(user.email);

    expect((await verify(token, bearer(user.tokens.access_token))).statusCode).toBe(204);
    expect((await login(next, user.password)).statusCode).toBe(200);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).json();
    expect(me).toMatchObject({ email: next, email_verified: true });

    const notice = await inbox.waitFor(user.email, /sign-in email address was changed/);
    expect(notice.text).toContain(next);
    expect(notice.text).toMatch(/if this was not you/i);

    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(user.tokens.access_token) })).json().data;
    const types = log.map((e: { type: string }) => e.type);
    expect(types.indexOf('email_changed')).toBeLessThan(types.indexOf('email_change_requested'));
    expect(log.find((e: { type: string }) => e.type === 'email_changed')).toMatchObject({ detail: { from: user.email, to: next } });
    expect(log.find((e: { type: string }) => e.type === 'email_change_requested')).toMatchObject({ detail: { to: next } });
    const event = await t.deps.database.db.selectFrom('events').select('data').where('type', '=', 'user.email.changed').where('org_id', '=', await t.personalOrgId(user.id)).executeTakeFirstOrThrow();
    expect(JSON.parse(event.data)).toMatchObject({ id: user.id, email: next, previous_email: user.email });

    // The link works once.
    const again = await verify(token, bearer(user.tokens.access_token));
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('invalid_token');
  });

  it('only the account\'s owner, signed in, confirms a change: every other follower is refused and leaves the link unspent', async () => {
    const user = await t.signUp();
    const other = await t.signUp();
    const next = uniqueEmail();
    expect((await change(user.tokens.access_token, { email: next, password: user.password })).statusCode).toBe(202);
    const token = await linkTo(next);
    const refused = async (headers: Record<string, string>, status: number, code: string) => {
      const res = await verify(token, headers);
      expect(res.statusCode, `${JSON.stringify(headers)}: ${res.body}`).toBe(status);
      expect(res.json().code).toBe(code);
      return res;
    };

    // Whoever reads the new address's inbox (a typo, a catch-all typo domain), with no session.
    const anonymous = await refused({}, 401, 'authentication_required');
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expect(anonymous.json().detail).toMatch(/sign in \(with your current email address.*then open the link again/);
    // A credential that is no good, as any route answers it.
    expect((await refused({ authorization: 'Bearer not-a-token' }, 401, 'invalid_token')).headers['www-authenticate']).toMatch(/^Bearer realm="gatehouse", error="invalid_token"/);
    expect((await refused({ authorization: 'Basic dXNlcjpwYXNz' }, 401, 'invalid_token')).headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const ended = await t.login(user.email, user.password);
    expect((await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(ended.access_token) })).statusCode).toBe(204);
    await refused(bearer(ended.access_token), 401, 'invalid_token');
    // Signed in, but not as the account's owner, or not with a session.
    expect((await refused(bearer(other.tokens.access_token), 403, 'forbidden')).json().detail).toMatch(/another account/);
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name: 'not a session' } })).json().key as string;
    await refused(bearer(key), 403, 'session_required');
    // The owner's own session, while the account is disabled or scheduled for deletion.
    const setAccount = async (values: { disabled?: number; deletion_due_at?: string | null }) => {
      await t.deps.database.db.updateTable('users').set(values).where('id', '=', user.id).execute();
      await t.deps.accounts.changed(user.id);
    };
    await setAccount({ disabled: 1 });
    await refused(bearer(user.tokens.access_token), 403, 'account_disabled');
    await setAccount({ disabled: 0, deletion_due_at: new Date(t.clock.now() + 86_400_000).toISOString() });
    expect((await refused(bearer(user.tokens.access_token), 401, 'invalid_token')).json().detail).toMatch(/scheduled for deletion/);
    await setAccount({ deletion_due_at: null });

    // Nothing changed, and nothing was spent: the owner, signed in, confirms with the same link.
    expect((await login(next, user.password)).statusCode).toBe(401);
    const log = (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(user.tokens.access_token) })).json().data;
    expect(log.map((e: { type: string }) => e.type)).not.toContain('email_changed');
    expect((await verify(token, bearer(user.tokens.access_token))).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).json()).toMatchObject({ email: next, email_verified: true });
    expect((await login(next, user.password)).statusCode).toBe(200);
    // Spent now: a dead link is said to be dead, with or without a session.
    expect((await verify(token)).json().code).toBe('invalid_token');
    expect((await verify(token, bearer(user.tokens.access_token))).json().code).toBe('invalid_token');
  });

  it('a registration link still needs no session, and ignores whatever Authorization it comes with', async () => {
    const first = await t.register();
    const second = await t.register();
    const other = await t.signUp();
    const linkOf = async (to: string) => tokenFromMail(await inbox.waitFor(to, /Confirm your email address/), 'verify-email');
    expect((await verify(await linkOf(first.email))).statusCode).toBe(204);
    expect((await verify(await linkOf(second.email), bearer('not-a-token'))).statusCode).toBe(204);
    const me = async (email: string, password: string) => (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer((await t.login(email, password)).access_token) })).json();
    expect(await me(first.email, first.password)).toMatchObject({ email_verified: true });
    expect(await me(second.email, second.password)).toMatchObject({ email_verified: true });
    // Another account's session: the link still confirms the address it was sent to.
    const third = await t.register();
    expect((await verify(await linkOf(third.email), bearer(other.tokens.access_token))).statusCode).toBe(204);
    expect(await me(third.email, third.password)).toMatchObject({ email_verified: true });
  });

  it('the link expires after 24 hours, and a newer request voids the older link', async () => {
    const user = await t.signUp();
    const first = uniqueEmail();
    expect((await change(user.tokens.access_token, { email: first, password: user.password })).statusCode).toBe(202);
    const expiring = await linkTo(first);
    t.clock.advance(24 * 3600_000 + 1_000);
    const fresh = (await t.login(user.email, user.password)).access_token;
    const expired = await verify(expiring, bearer(fresh));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('invalid_token');

    const [a, b] = [uniqueEmail(), uniqueEmail()];
    expect((await change(fresh, { email: a, password: user.password })).statusCode).toBe(202);
    const older = await linkTo(a);
    expect((await change(fresh, { email: b, password: user.password })).statusCode).toBe(202);
    const newer = await linkTo(b);
    expect((await verify(older, bearer(fresh))).statusCode).toBe(401);
    expect((await verify(newer, bearer(fresh))).statusCode).toBe(204);
    expect((await login(b, user.password)).statusCode).toBe(200);
  });

  it('confirming a change ends the old address\'s reset links', async () => {
    const user = await t.signUp();
    await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: user.email } });
    const reset = tokenFromMail(await inbox.waitFor(user.email, /Reset your password/), 'reset-password');
    const next = uniqueEmail();
    expect((await change(user.tokens.access_token, { email: next, password: user.password })).statusCode).toBe(202);
    expect((await verify(await linkTo(next), bearer(user.tokens.access_token))).statusCode).toBe(204);
    const res = await t.request({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: reset, password: 'Hijacked-Harbour-Key-51' } });
    expect(res.statusCode).toBe(401);
    expect((await login(next, user.password)).statusCode).toBe(200);
  });

  it('refuses a wrong or missing password, the same address, a taken one (at request and at confirmation), and bad input', async () => {
    const user = await t.signUp();
    const other = await t.signUp();
    const token = user.tokens.access_token;
    const fieldCode = async (payload: Record<string, unknown>) => {
      const res = await change(token, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      return res.json().errors?.[0]?.code as string | undefined;
    };
    expect(await fieldCode({ email: uniqueEmail(), password: 'Wrong-Password-123' })).toBe('incorrect_password');
    expect(await fieldCode({ email: uniqueEmail() })).toBe('required');
    expect(await fieldCode({ email: user.email.toUpperCase(), password: user.password })).toBe('unchanged');
    expect(await fieldCode({ email: 'not-an-address', password: user.password })).toBeDefined();
    expect(await fieldCode({ email: uniqueEmail(), password: user.password, name: 'x' })).toBeDefined();

    const taken = await change(token, { email: other.email.toUpperCase(), password: user.password });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('email_taken');

    // The address was free when asked for and taken before the link was followed.
    const contested = uniqueEmail();
    expect((await change(token, { email: contested, password: user.password })).statusCode).toBe(202);
    const link = await linkTo(contested);
    await t.register({ email: contested });
    const raced = await verify(link, bearer(token));
    expect(raced.statusCode).toBe(409);
    expect(raced.json().code).toBe('email_taken');
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    expect(inbox.mails.filter((m) => m.to === user.email && /was changed/.test(m.subject))).toHaveLength(0);
  });

  it('answers at most 3 requests an hour, a taken address counting like a mail (no fast "is it registered?")', async () => {
    const user = await t.signUp();
    const other = await t.signUp();
    for (let i = 0; i < 2; i++) expect((await change(user.tokens.access_token, { email: uniqueEmail(), password: user.password })).statusCode).toBe(202);
    expect((await change(user.tokens.access_token, { email: other.email, password: user.password })).statusCode).toBe(409);
    expect((await change(user.tokens.access_token, { email: user.email, password: user.password })).statusCode).toBe(400); // unchanged: free
    const limited = await change(user.tokens.access_token, { email: uniqueEmail(), password: user.password });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('too_many_attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an account without a password confirms with a recent sign-in instead', async () => {
    const user = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ password_hash: '' }).where('id', '=', user.id).execute();
    await t.deps.accounts.changed(user.id);
    const next = uniqueEmail();
    expect((await change(user.tokens.access_token, { email: next })).statusCode).toBe(202);
    t.clock.advance(11 * 60_000); // past MFA_STEP_UP_SECONDS (600) since the sign-in
    const [session] = await t.deps.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    const token = (await t.deps.accessTokens.issue({ userId: user.id, sessionId: session!.id, scope: 'profile', amr: ['pwd'] })).token;
    const stale = await change(token, { email: uniqueEmail() });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().code).toBe('forbidden');
  });
});
