/**
 * Signing in without the password, in Chromium against a real server that mails through SMTP to
 * a real inbox on loopback (server/test/smtp-inbox.ts): "Email me a sign-in code" on the login page
 * (a wrong code refused, a new code asked for, the newest one signs in); the mailed link opening
 * /sign-in (signed in at once; the same link again explains itself and mails a new code from
 * there); an account with a second factor; signing up with a code; and the mail limit's wait.
 * axe-core checks every page photographed, in both colour schemes, at desktop and phone width.
 */
import { createGatehouse, memoryTokenStore, type Gatehouse } from '@gatehouse/sdk';
import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type ReceivedMail } from '../../server/test/smtp-inbox.ts';
import { skipJourneys, uniqueSuffix, useJourney } from './journey-harness.ts';

describe.skipIf(skipJourneys)('dashboard journey: sign-in codes (Chromium)', () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
  });
  afterAll(async () => {
    await inbox?.close();
  });
  // The journey's beforeAll runs after the inbox's, so the server mails there.
  const journey = useJourney({ name: 'sign-in-code', serverEnv: () => ({ SMTP_URL: inbox.url }) });
  const { shoot, expectFailedResponses } = journey;
  let page: Page;
  let katherine: { email: string; password: string; api: Gatehouse };

  /** The `nth` sign-in mail to `email` (1 is the first): its code, and its link as mailed. */
  async function signInMail(email: string, nth: number): Promise<{ code: string; link: string; mail: ReceivedMail }> {
    const mail = await inbox.waitFor(email, /sign-in code/, nth);
    const code = /sign-in code is (\d{6})/.exec(mail.text)?.[1];
    const link = /https?:\/\/\S+\/sign-in\?token=\S+/.exec(mail.text)?.[0];
    if (!code || !link) throw new Error(`no code or link in the sign-in mail: ${mail.text}`);
    return { code, link, mail };
  }

  /** An account with a confirmed address (the link from the inbox), and the SDK signed in as it. */
  async function newAccount(name: string) {
    const email = `sign-in-code.${uniqueSuffix()}@example.com`;
    const password = `Quiet-Harbor-${uniqueSuffix()}-91`;
    const api = createGatehouse({ baseUrl: journey.server.base, tokenStore: memoryTokenStore() });
    await api.auth.register({ name, email, password });
    const confirm = await inbox.waitFor(email, /Confirm your email address/);
    const token = /\/verify-email\?token=([A-Za-z0-9_%-]+)/.exec(confirm.text)![1]!;
    await api.auth.verifyEmail({ token: decodeURIComponent(token) });
    await api.auth.login({ username: email, password });
    return { email, password, api };
  }

  const alertText = async () => (await page.getByRole('alert').textContent()) ?? '';
  const logOut = async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
  };

  beforeAll(async () => {
    page = journey.page;
    katherine = await newAccount('Katherine Johnson');
  });

  it('Log in → Email me a sign-in code: a wrong code is refused, a new code retires the first, the newest signs in', async () => {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in with an email code' }).waitFor();
    expect(await journey.focused()).toBe('field-email');
    await page.getByLabel('Email').fill(katherine.email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const codeField = page.getByLabel('Sign-in code');
    await codeField.waitFor();
    // The phone's keyboard is the digits, and the browser (or the phone) may offer the code from the mail.
    expect(await codeField.evaluate((input: HTMLInputElement) => [input.autocomplete, input.inputMode, document.activeElement === input])).toEqual(['one-time-code', 'numeric', true]);
    expect(await page.getByRole('status').textContent()).toContain(`is on its way, if an account uses ${katherine.email}`);
    const first = await signInMail(katherine.email, 1);
    expect(first.mail.subject).toBe(`${first.code} is your Gatehouse sign-in code`);

    await codeField.fill(String((Number(first.code) + 1) % 1_000_000).padStart(6, '0'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await alertText()).toMatch(/The code is not correct.*ask for a new code/);
    expectFailedResponses(['POST /v1/auth/passwordless/verify 401']);
    await shoot('email-code-wrong');

    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByRole('status').filter({ hasText: 'A new code is on its way' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    const second = await signInMail(katherine.email, 2);
    // The first code is dead now: the newest mail's signs in.
    await codeField.fill(` ${second.code} `);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expectFailedResponses([]);
  });

  it('the mailed link signs in as it opens; opened again, it explains and mails a new code from there', async () => {
    await logOut();
    await katherine.api.auth.startEmailSignIn({ email: katherine.email, create_account: false });
    const { link } = await signInMail(katherine.email, 3);
    expect(link.startsWith(`${journey.server.base}/sign-in?token=gths_`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).not.toContain('token=');
    expectFailedResponses([]);

    await logOut();
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'This sign-in link does not work' }).waitFor();
    expect(await alertText()).toMatch(/not valid any more/);
    expect(page.url()).not.toContain('token=');
    expectFailedResponses(['POST /v1/auth/passwordless/verify 401']);
    await shoot('sign-in-link-used');
    await page.getByLabel('Email').fill(katherine.email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Sign-in code').fill((await signInMail(katherine.email, 4)).code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expectFailedResponses([]);
  });

  it('an account with an authenticator app: the link asks for its code next', async () => {
    await logOut();
    const grace = await newAccount('Grace Hopper');
    const { secret } = await grace.api.me.mfa.enrolTotp({ password: grace.password });
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    // The previous step's code turns it on, so the current one is still unspent for the sign-in.
    await grace.api.me.mfa.confirmTotp({ code: totp.generate({ timestamp: Date.now() - 30_000 }) });
    await grace.api.auth.startEmailSignIn({ email: grace.email, create_account: false });
    await page.goto((await signInMail(grace.email, 1)).link);
    await page.getByRole('heading', { level: 1, name: 'Two-step verification' }).waitFor();
    expectFailedResponses(['POST /v1/auth/passwordless/verify 403']);
    await page.getByLabel('Code from your authenticator app').fill(totp.generate());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expectFailedResponses([]);
  });

  it('Create your account → Sign up with an email code: a new address gets its account from the code', async () => {
    await logOut();
    const email = `new.${uniqueSuffix()}@example.com`;
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('button', { name: 'Sign up with an email code instead' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your account with an email code' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByRole('status').filter({ hasText: `A code is on its way to ${email}` }).waitFor();
    await shoot('sign-up-code');
    await page.getByLabel('Sign-in code').fill((await signInMail(email, 1)).code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expectFailedResponses([]);
  });

  it('past the mail limit (5 an hour per address), "Send a new code" says how long to wait', async () => {
    await logOut();
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await page.getByLabel('Email').fill(katherine.email);
    await page.getByRole('button', { name: 'Email me a code' }).click(); // the fifth this hour
    await signInMail(katherine.email, 5);
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByRole('alert').waitFor();
    expect(await alertText()).toMatch(/Too many sign-in codes asked for.*Try again in \d+ min\./);
    expectFailedResponses(['POST /v1/auth/passwordless/start 429']);
    await shoot('email-code-too-many');
  });

  it('printed nothing to the console, and photographed every page at both sizes', () => {
    expect(journey.consoleErrors).toEqual([]);
    expect(journey.shots).toHaveLength(4);
  });
});
