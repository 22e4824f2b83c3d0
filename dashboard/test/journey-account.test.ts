/**
 * The account's own screens, in Chromium against a real server: Settings → Sessions "Sign out
 * everywhere else" (the other sessions' SDK calls then fail with 401); Settings → Profile "Change
 * email" (a wrong password first; the new address cannot sign in until the mailed link is
 * followed, then it can and the old one cannot; the old address is told; the security log shows
 * it); Settings → Account "Download your data" (the file arrives through a Blob link under the CSP
 * and parses as the account's export); and "Delete account" (a wrong password first; the login
 * page then gives the date, an API key made before fails at once, and signing in again within the
 * grace period restores the account, which the security log shows). axe-core checks every page
 * photographed.
 */
import { readFile } from 'node:fs/promises';
import { createGatehouse, isGatehouseError, memoryTokenStore, type Gatehouse } from '@gatehouse/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipJourneys, uniqueSuffix, useJourney, type TestUser } from './journey-harness.ts';

/** The HTTP status a call failed with (and fails the test when it succeeded). */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (isGatehouseError(error)) return error.status;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe.skipIf(skipJourneys)('dashboard journey: account (Chromium)', () => {
  const journey = useJourney({ name: 'account' });
  const { shoot, expectFailedResponses } = journey;
  let page: Page;
  let user: TestUser;
  const newEmail = `moved.${uniqueSuffix()}@example.com`;
  const client = () => createGatehouse({ baseUrl: journey.server.base, tokenStore: memoryTokenStore() });
  const signedIn = async (email: string): Promise<Gatehouse> => {
    const api = client();
    await api.auth.login({ username: email, password: user.password });
    return api;
  };
  /** The names of the security log's rows, newest first, as the page shows them. */
  const logNames = () => page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
  const openSettings = async (label: string) => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Settings: ${label}` }).waitFor();
  };

  beforeAll(async () => {
    page = journey.page;
    user = await journey.signUp({ name: 'Ada Lovelace' });
    await journey.signIn(user, '/settings/sessions');
    await page.getByRole('heading', { level: 1, name: 'Settings: Sessions' }).waitFor();
  });

  it('Settings → Sessions: "Sign out everywhere else", confirmed, leaves this session alone; the others fail with 401', async () => {
    const second = await signedIn(user.email);
    await page.reload();
    const rows = page.locator('section[aria-labelledby="sessions-title"] tbody tr');
    // The SDK's session from sign-up, a second program's, and the browser's.
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere else?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('2 other sessions');
    await shoot('sessions-sign-out-others');
    await dialog.getByRole('button', { name: 'Sign out other sessions' }).click();
    await page.getByText('The 2 other sessions are signed out.').waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('this session');
    expect(await page.getByRole('button', { name: 'Sign out everywhere else' }).count()).toBe(0);
    await shoot('sessions-only-this-one');

    expect(await statusOf(user.api.me.get())).toBe(401);
    expect(await statusOf(second.me.get())).toBe(401);
    // This one goes on.
    await page.reload();
    await expect.poll(() => rows.count()).toBe(1);
    expectFailedResponses([]);
  });

  it('Settings → Profile: "Change email" takes effect only once the link mailed to the new address is followed', async () => {
    await openSettings('Profile');
    const form = page.locator('section[aria-labelledby="change-email-title"]');
    await form.getByLabel('New email address').fill(newEmail);
    await form.getByLabel('Your password').fill('not-the-password');
    await form.getByRole('button', { name: 'Send the link' }).click();
    await form.getByText('The password is not correct.').first().waitFor();
    expectFailedResponses(['POST /v1/users/me/email 400']);

    await form.getByLabel('Your password').fill(user.password);
    await form.getByRole('button', { name: 'Send the link' }).click();
    const sent = form.getByRole('status');
    await sent.waitFor();
    expect(await sent.textContent()).toBe(`We sent a link to ${newEmail}. Until you confirm it, sign in with your current address, ${user.email}.`);
    await shoot('profile-change-email');
    expectFailedResponses([]);

    // Before the link: the new address signs nobody in, the old one still does.
    expect(await statusOf(signedIn(newEmail))).toBe(401);
    await signedIn(user.email);

    let token: string | null = null;
    await expect.poll(() => (token = journey.server.mailedToken('verify-email', newEmail))).not.toBeNull();
    // The link opened signed out (another browser, or whoever reads a mistyped address): it
    // changes nothing and stays good for the owner, who logs in and comes back to it.
    await journey.inOwnContext(journey.server.base, async (own) => {
      await own.goto(`/verify-email?token=${encodeURIComponent(token!)}`);
      await own.getByRole('heading', { name: 'Log in to confirm your new email address' }).waitFor();
      await shoot('verify-email-change-signed-out');
      expect(await statusOf(signedIn(newEmail))).toBe(401);
      await own.getByRole('link', { name: 'Log in' }).click();
      await own.getByLabel('Email').fill(user.email);
      await own.getByLabel('Password').fill(user.password);
      await own.getByRole('button', { name: 'Log in' }).click();
      const changed = own.getByRole('status').filter({ hasText: 'Your email address is changed' });
      await changed.waitFor();
      expect(await changed.textContent()).toBe(`Your email address is changed: sign in with ${newEmail} from now on. ${user.email} no longer signs in.`);
      expect(new URL(own.url()).search).toBe(''); // the token left the address bar
      await shoot('verify-email-changed');
    });
    expectFailedResponses([]);

    // After: the new address signs in, the old one does not, and the old one was told.
    await signedIn(newEmail);
    expect(await statusOf(signedIn(user.email))).toBe(401);
    const toldOld = () => journey.server.output().split('\n').some((line) => line.includes('"mail"') && line.includes(`"to":"${user.email}"`) && line.includes(`was changed to ${newEmail}`));
    await expect.poll(toldOld).toBe(true);

    await page.goto('/settings/profile');
    await page.getByRole('heading', { level: 1, name: 'Settings: Profile' }).waitFor();
    expect(await page.locator('.facts').textContent()).toContain(newEmail);
    await openSettings('Security log');
    // Newest first: the new address's sign-in, the change, the sign-in that followed the link, the old address's sign-in before it, the request.
    await expect.poll(async () => (await logNames()).slice(0, 5)).toEqual(['Signed in', 'Email address changed', 'Signed in', 'Signed in', 'Email change asked for']);
    expect(await page.locator('tbody tr').nth(1).textContent()).toContain(`From${user.email}To${newEmail}`);
    await shoot('security-log-email-changed');
    expectFailedResponses([]);
  });

  it('Settings → Account: "Download your data" saves the export as a JSON file (a Blob link, allowed by the CSP)', async () => {
    await openSettings('Account');
    await shoot('account');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download your data' }).click()]);
    const filename = download.suggestedFilename();
    expect(filename).toMatch(/^gatehouse-export-usr_\w+-\d{4}-\d{2}-\d{2}\.json$/);
    const path = await download.path();
    const exported = JSON.parse(await readFile(path, 'utf8')) as { format: string; version: number; user: { email: string; name: string }; security_events?: { type: string }[] };
    expect(exported.format).toBe('gatehouse.account-export');
    expect(exported.version).toBe(1);
    expect(exported.user).toMatchObject({ email: newEmail, name: 'Ada Lovelace' });
    await page.getByRole('status').filter({ hasText: `Saved as ${filename}` }).waitFor();
    await shoot('account-exported');
    expectFailedResponses([]);
  });

  it('Settings → Account: "Delete account" (a wrong password first) signs out with the date; the keys fail at once; signing in again restores it', async () => {
    const api = await signedIn(newEmail);
    const created = await api.apiKeys.create({ name: 'Made before deleting', scopes: ['agents:read'] });
    if (!created.key) throw new Error('a new key comes with its secret');
    const key = createGatehouse({ baseUrl: journey.server.base, apiKey: created.key });
    await key.agents.list();

    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    expect(await journey.focused()).toBe('Cancel'); // a stray Enter deletes nothing
    expect(await dialog.textContent()).toContain('signing in again restores the account');
    // The export is offered in the dialog too.
    expect(await dialog.getByRole('button', { name: 'Download your data first' }).count()).toBe(1);
    await dialog.getByLabel('Your password').fill('not-the-password');
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await dialog.getByText('The password is not correct.').first().waitFor();
    expectFailedResponses(['DELETE /v1/users/me 400']);
    await shoot('account-delete-dialog');

    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL((url) => url.pathname === '/login' && url.search === '');
    const notice = page.getByRole('status').filter({ hasText: 'Your account will be deleted on' });
    await notice.waitFor();
    expect(await statusOf(api.me.get())).toBe(401); // every session ended with it
    expect(await notice.textContent()).toMatch(/^Your account will be deleted on .*\d{4}.*\. Every session was signed out and every API key revoked\. Log in before then to restore it\.$/);
    await shoot('login-after-deletion');

    // At once: the key made before fails.
    expect(await statusOf(key.agents.list())).toBe(401);
    expectFailedResponses([]);

    // Signing in within the grace period restores the account (the key stays revoked).
    await page.getByLabel('Email').fill(newEmail);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto('/settings/security-log');
    await page.getByRole('heading', { level: 1, name: 'Settings: Security log' }).waitFor();
    await expect.poll(async () => (await logNames()).slice(0, 3)).toEqual(['Signed in', 'Account restored', 'Account deletion scheduled']);
    const scheduled = page.locator('tbody tr').nth(2);
    expect(await scheduled.textContent()).toMatch(/Sessions signed out\d+API keys revoked1/);
    await shoot('security-log-restored');
    expect(await statusOf(key.agents.list())).toBe(401);
    await signedIn(newEmail);
    expectFailedResponses([]);
  });

  it('printed nothing to the console (no CSP refusal of the download), and photographed every page at both sizes', () => {
    expect(journey.consoleErrors).toEqual([]);
    expect(journey.shots.length).toBe(11);
  });
});
