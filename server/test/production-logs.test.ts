import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from './harness.js';
import { postJson, runGatehouse, startServerOnFreshSqlite } from './server-process.js';
import { startInbox, tokenFromMail } from './smtp-inbox.js';

const SECRET = 'production-test-secret-0123456789abcdef';
const PRODUCTION = { NODE_ENV: 'production', GATEHOUSE_SECRET: SECRET };
const NEW_PASSWORD = 'Copper-Lagoon-Thistle-64';

/** Every request that can carry a mailed token: the dashboard pages, the API, and odd routes with a query. */
function tokenRequests(verifyToken: string, resetToken: string) {
  return [
    { method: 'GET', url: `/verify-email?token=${encodeURIComponent(verifyToken)}` },
    { method: 'GET', url: `/reset-password?token=${encodeURIComponent(resetToken)}` },
    { method: 'GET', url: `/reset-password/?token=${encodeURIComponent(resetToken)}` },
    { method: 'GET', url: `/no-such-page?token=${encodeURIComponent(resetToken)}` },
    { method: 'GET', url: `/v1/users/me?token=${encodeURIComponent(resetToken)}` },
    { method: 'POST', url: '/v1/auth/email/verify', payload: { token: verifyToken } },
    { method: 'POST', url: `/v1/auth/password/reset?token=${encodeURIComponent(resetToken)}`, payload: { token: resetToken, password: NEW_PASSWORD } },
    // Malformed: the refused body is logged nowhere either.
    { method: 'POST', url: '/v1/auth/password/reset', headers: { 'content-type': 'application/json' }, payload: `{"token":"${resetToken}",` },
  ] as const;
}

describe(`no token reaches a log in production (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { ...PRODUCTION, SMTP_URL: inbox.url } });
  });
  afterAll(async () => {
    await t.close();
    await inbox.close();
  });

  it('mailed verification and reset tokens, used on every route they can reach, appear in no log line', async () => {
    const user = await t.signUp();
    const verifyToken = tokenFromMail(await inbox.waitFor(user.email, /Confirm your email/), 'verify-email');
    expect((await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: user.email } })).statusCode).toBe(202);
    const resetToken = tokenFromMail(await inbox.waitFor(user.email, /Reset your password/), 'reset-password');
    expect(verifyToken).toMatch(/^gthv_/);
    expect(resetToken).toMatch(/^gthp_/);

    const statuses: number[] = [];
    for (const request of tokenRequests(verifyToken, resetToken)) statuses.push((await t.request(request)).statusCode);
    expect(statuses.slice(5, 7), 'the tokens were real and were used').toEqual([204, 204]);
    await t.login(user.email, NEW_PASSWORD);
    await inbox.waitFor(user.email, /password was changed/i);

    const text = t.logs.join('\n');
    for (const secret of [verifyToken, resetToken, encodeURIComponent(verifyToken), encodeURIComponent(resetToken), verifyToken.slice(5), resetToken.slice(5)]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain(NEW_PASSWORD);
    expect(text).not.toContain(STRONG_PASSWORD);
    // The requests were logged (so the check above looked at something): by route template.
    const lines = t.logs.map((line) => JSON.parse(line) as { msg: string; url?: string; reqId?: string; status?: number; ms?: number });
    const requestLines = lines.filter((line) => line.msg === 'request');
    // Each carries the request id the client saw (X-Request-Id), its status and its time.
    for (const line of requestLines) expect(line).toMatchObject({ reqId: expect.stringMatching(/^req_/), status: expect.any(Number), ms: expect.any(Number) });
    const urls = requestLines.map((line) => line.url);
    expect(urls).toEqual(expect.arrayContaining(['/verify-email', '/reset-password', '/v1/auth/email/verify', '/v1/auth/password/reset']));
    expect(urls.filter((url) => url?.includes('?'))).toEqual([]);
  });

  it('logs a failed mail with the SMTP reply, never the message or its recipient', async () => {
    const refusing = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('message refused by policy'), { responseCode: 554 })));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const port = (refusing.server.address() as AddressInfo).port;
    const app = await createTestApp({ env: { ...PRODUCTION, SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const email = uniqueEmail();
      await app.register({ email });
      let failure: string | undefined;
      for (let i = 0; i < 200 && !failure; i++) {
        failure = app.logs.find((line) => line.includes('background task failed'));
        if (!failure) await new Promise((r) => setTimeout(r, 25));
      }
      expect(failure, 'the failed mail was logged').toBeDefined();
      const { err } = JSON.parse(failure!) as { err: Record<string, unknown> };
      expect(err).toMatchObject({ type: 'MailDeliveryError', code: 'EMESSAGE', command: 'DATA', responseCode: 554 });
      expect(String(err.message)).toContain('message refused by policy');
      const text = app.logs.join('\n');
      expect(text).not.toMatch(/gth[vp]_/);
      expect(text).not.toContain(email);
    } finally {
      await app.close();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});

describe('gatehouse serve with NODE_ENV=production', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-production-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const baseEnv = () => ({
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), HOST: '127.0.0.1', PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'refused.db')}`, ...PRODUCTION,
  });

  it('refuses to start without SMTP_URL: exit code 2 and one line naming it', async () => {
    const { code, output } = await runGatehouse(['serve'], baseEnv(), 20_000);
    expect(output.trim().split('\n')).toEqual([expect.stringMatching(/^config: SMTP_URL is required when NODE_ENV=production/)]);
    expect(code).toBe(2);
  });

  it('refuses an SMTP_URL that turns on nodemailer\'s logging', async () => {
    const { code, output } = await runGatehouse(['serve'], { ...baseEnv(), SMTP_URL: 'smtp://127.0.0.1:2525?logger=true&debug=true' }, 20_000);
    expect(output.trim().split('\n')).toEqual([expect.stringMatching(/^config: SMTP_URL must not turn on nodemailer's logger /)]);
    expect(code).toBe(2);
  });

  it('starts with SMTP_URL, mails the links, and prints no token, even when the links are used', async () => {
    const inbox = await startInbox();
    const server = await startServerOnFreshSqlite({ ...PRODUCTION, SMTP_URL: inbox.url, PUBLIC_RATE_LIMIT_PER_MINUTE: '1000' });
    try {
      const email = uniqueEmail();
      expect((await postJson(server.base, '/v1/auth/register', { email, password: STRONG_PASSWORD, name: 'Prod' })).status).toBe(201);
      const verifyToken = tokenFromMail(await inbox.waitFor(email, /Confirm your email/), 'verify-email');
      expect((await postJson(server.base, '/v1/auth/password/forgot', { email })).status).toBe(202);
      const resetToken = tokenFromMail(await inbox.waitFor(email, /Reset your password/), 'reset-password');
      const statuses: number[] = [];
      for (const request of tokenRequests(verifyToken, resetToken)) {
        const headers = 'headers' in request ? request.headers : 'payload' in request ? { 'content-type': 'application/json' } : undefined;
        const body = 'payload' in request ? (typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload)) : undefined;
        statuses.push((await fetch(`${server.base}${request.url}`, { method: request.method, headers, body })).status);
      }
      expect(statuses.slice(5, 7), 'the tokens were real and were used').toEqual([204, 204]);
      const login = await postJson(server.base, '/v1/auth/login', { username: email, password: NEW_PASSWORD });
      expect(login.status).toBe(200);
      const { access_token: access } = (await login.json()) as { access_token: string };
      expect((await fetch(`${server.base}/v1/users/me?access_token=${access}`, { headers: bearer(access) })).status).toBe(200);

      const output = server.output();
      expect(output).toContain('"msg":"request"');
      expect(output).toContain('"url":"/reset-password"');
      for (const secret of [verifyToken.slice(5), resetToken.slice(5), access.split('.')[2]!]) expect(output).not.toContain(secret);
      expect(output).not.toContain('?token=');
    } finally {
      await server.stop();
      await inbox.close();
    }
  });
});
