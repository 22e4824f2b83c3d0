import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

/**
 * With NODE_ENV=production no secret of any kind reaches the log, even at debug level: not the
 * mailed link tokens, not refresh tokens, access tokens or API keys, not SMTP credentials. (The
 * start without SMTP_URL is refused: src/config.test.ts.)
 */
describe(`production logs carry no credentials of any kind (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  const secrets: string[] = [];
  beforeAll(async () => {
    inbox = await startInbox({ auth: { user: 'mailer', pass: 'smtp-password-never-logged' } });
    const smtp = new URL(inbox.url);
    smtp.username = 'mailer';
    smtp.password = 'smtp-password-never-logged';
    secrets.push(smtp.password);
    t = await createTestApp({ env: { NODE_ENV: 'production', GATEHOUSE_SECRET: 'p'.repeat(40), SMTP_URL: smtp.toString() } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  it('runs sign-up, verification, login, keys, reset and the mailed pages without logging a token', async () => {
    const user = await t.signUp();
    secrets.push(user.password, user.tokens.access_token, user.tokens.refresh_token);
    const verifyToken = tokenFromMail(await inbox.waitFor(user.email, /Confirm your email/), 'verify-email');
    secrets.push(verifyToken);
    await t.request({ method: 'GET', url: `/verify-email?token=${encodeURIComponent(verifyToken)}` });
    expect((await t.request({ method: 'POST', url: '/v1/auth/email/verify', payload: { token: verifyToken } })).statusCode).toBe(204);
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name: 'k' } })).json().key as string;
    secrets.push(key);
    await t.request({ method: 'GET', url: `/v1/agents?cursor=${encodeURIComponent(key)}`, headers: bearer(key) });
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: user.tokens.refresh_token } });
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: user.tokens.refresh_token } }); // reuse: revokes the session

    await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: user.email } });
    const resetToken = tokenFromMail(await inbox.waitFor(user.email, /Reset your password/), 'reset-password');
    secrets.push(resetToken);
    await t.request({ method: 'GET', url: `/reset-password?token=${encodeURIComponent(resetToken)}` });
    expect((await t.request({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: resetToken, password: 'Quiet-Meadow-Lantern-61' } })).statusCode).toBe(204);
    expect((await t.request({ method: 'POST', url: '/v1/auth/password/reset', payload: { token: resetToken, password: 'Quiet-Meadow-Lantern-62' } })).statusCode).toBe(401);
    await inbox.waitFor(user.email, /Your password was changed/);

    expect(t.logs.length).toBeGreaterThan(10); // it did log: requests, at debug level
    const leaked = secrets.filter((secret) => t.logs.some((line) => line.includes(secret)));
    expect(leaked).toEqual([]);
    expect(t.logs.filter((line) => /gth[pvr]?_[A-Za-z0-9]{10}|eyJ[A-Za-z0-9_-]{20}/.test(line))).toEqual([]);
  });
});
