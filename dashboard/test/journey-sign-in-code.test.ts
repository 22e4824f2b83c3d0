/**
 * Signing in without the password, in Chromium against a real server: "Email me a sign-in code"
 * on the login page (a wrong code first, then the mailed one), and the mailed link opening
 * /sign-in (signed in at once; the same link again explains itself). axe-core checks every page
 * photographed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipJourneys, useJourney, type TestUser } from './journey-harness.ts';

describe.skipIf(skipJourneys)('dashboard journey: sign-in codes (Chromium)', () => {
  const journey = useJourney({ name: 'sign-in-code' });
  const { shoot, expectFailedResponses } = journey;
  let page: Page;
  let user: TestUser;

  /** The newest code (or link token) the server mailed `email`, once a newer one than `previous` is there. */
  async function mailed<T>(read: () => T | null, previous: T | null = null): Promise<T> {
    for (let tries = 0; tries < 100; tries++) {
      const value = read();
      if (value !== null && value !== previous) return value;
      await sleep(50);
    }
    throw new Error('no sign-in mail arrived');
  }

  beforeAll(async () => {
    page = journey.page;
    user = await journey.signUp({ name: 'Katherine Johnson' });
  });

  it('Log in → Email me a sign-in code: a wrong code is refused beside the field, the mailed one signs in', async () => {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in with an email code' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await shoot('email-code-address');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Sign-in code').waitFor();
    const code = await mailed(() => journey.server.mailedCode(user.email));
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await page.getByLabel('Sign-in code').fill(wrong);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/code is not correct/);
    expectFailedResponses(['POST /v1/auth/passwordless/verify 401']);
    await shoot('email-code-wrong');

    await page.getByLabel('Sign-in code').fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expectFailedResponses([]);
  });

  it('the mailed link signs in as it opens; opened again, it says it was used', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    const before = journey.server.mailedToken('sign-in', user.email);
    await user.api.auth.startEmailSignIn({ email: user.email, create_account: false });
    const token = await mailed(() => journey.server.mailedToken('sign-in', user.email), before);
    await page.goto(`/sign-in?token=${encodeURIComponent(token)}`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).not.toContain('token=');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    await page.goto(`/sign-in?token=${encodeURIComponent(token)}`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/not valid any more/);
    expectFailedResponses(['POST /v1/auth/passwordless/verify 401']);
    await shoot('sign-in-link-used');
  });

  it('printed nothing to the console, and photographed every page at both sizes', () => {
    expect(journey.consoleErrors).toEqual([]);
    expect(journey.shots.length).toBe(3);
  });
});
