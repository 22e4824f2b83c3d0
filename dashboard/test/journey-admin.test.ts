/**
 * An admin's journey through the admin area, in Chromium against a real server: the users list
 * found by part of a name and narrowed by tier and status, a user's page (custom limits on the
 * enterprise tier, then the standard tier), disabling the user after a confirmation (their own
 * SDK client is then refused with 403 account_disabled, and so is their sign-in) and enabling
 * them again, their security log showing each of the admin's changes, an organization's page;
 * and a non-admin, who sees no Admin entry and an "admins only" page. axe-core checks every page
 * photographed.
 */
import { createGatehouse, memoryTokenStore, type Gatehouse } from '@gatehouse/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipJourneys, uniqueSuffix, useJourney, type TestUser } from './journey-harness.ts';
import { IPV6, LONG_USER_AGENT, clientFrom } from './support/wide-layout.ts';

describe.skipIf(skipJourneys)('dashboard journey: admin (Chromium)', () => {
  // TRUST_PROXY: a sign-in from an IPv6 address (X-Forwarded-For) for the wide-layout check.
  const journey = useJourney({ name: 'admin', serverEnv: { TRUST_PROXY: 'true' } });
  const { shoot, expectFailedResponses } = journey;
  let page: Page;
  let admin: TestUser;
  let target: TestUser;
  let targetId: string;
  let targetPath: string;
  /** The target's API key, made before the admin disables the account. */
  let targetKey: Gatehouse;

  beforeAll(async () => {
    page = journey.page;
    admin = await journey.signUp({ name: 'Ada Admin' });
    const granted = await journey.server.cli(['users', 'grant-admin', admin.email]);
    expect(granted.code, granted.output).toBe(0);
    target = await journey.signUp({ name: 'Margaret Hamilton' });
    await journey.signUp({ name: 'Grace Hopper' }); // someone the search must leave out
    targetId = (await target.api.me.get()).id;
    targetPath = `/admin/users/${targetId}`;
    const { key } = await target.api.apiKeys.create({ name: 'Target key', scopes: ['agents:read'] });
    if (!key) throw new Error('a new key comes with its secret');
    targetKey = createGatehouse({ baseUrl: journey.server.base, apiKey: key });
    await journey.signIn(admin);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  const userRows = () => page.locator('section[aria-labelledby="admin-users-title"] tbody tr');

  it('Admin → Users: everyone newest first; found by part of a name; narrowed by tier and status', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { level: 1, name: 'Admin: Users' }).waitFor();
    await userRows().first().waitFor();
    expect(await userRows().count()).toBe(3);
    // Newest first: the last one signed up leads; the admin, first of all, is last and marked.
    expect(await userRows().first().textContent()).toContain('Grace Hopper');
    expect(await userRows().last().textContent()).toContain(admin.email);
    expect(await userRows().last().locator('.badge').allTextContents()).toEqual(['active', 'admin']);
    await shoot('admin-users');

    // Part of the name, any letter case, with Enter: the address keeps the search.
    await page.getByLabel('Name or email contains').fill('hamilton');
    await page.getByLabel('Name or email contains').press('Enter');
    await page.waitForURL((url) => url.pathname === '/admin' && url.searchParams.get('q') === 'hamilton');
    await expect.poll(() => userRows().count()).toBe(1);
    const row = userRows().first();
    expect(await row.locator('td[data-label="Email"]').textContent()).toBe(target.email);
    expect(await row.locator('td[data-label="Name"]').textContent()).toBe('Margaret Hamilton');
    expect(await row.locator('td[data-label="Tier"]').textContent()).toBe('Free');
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe('active');
    await shoot('admin-users-search');

    // A tier nobody is on: the empty state, no table.
    await page.getByLabel('Tier').selectOption({ label: 'Standard' });
    await page.getByText('No user matches.').waitFor();
    expect(page.url()).toContain('q=hamilton&tier=standard');
    expect(await page.locator('section[aria-labelledby="admin-users-title"] table').count()).toBe(0);
    await shoot('admin-users-empty');
    await page.getByLabel('Tier').selectOption({ label: 'Any tier' });
    await row.waitFor();

    await row.getByRole('link', { name: target.email }).click();
    await page.getByRole('heading', { level: 1, name: `Admin: ${target.email}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(targetPath);
    expectFailedResponses([]);
  });

  /** The value of a fact on the user's (or organization's) page. */
  const fact = (term: string) => page.locator('.facts > div', { has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd');
  const accountChanges = () => target.api.me.securityEvents({ type: 'account_updated_by_admin' });

  it('a user’s page: facts and organizations; custom limits on the enterprise tier (one box missing first), then the standard tier', async () => {
    await page.goto(targetPath);
    await page.getByRole('heading', { level: 1, name: `Admin: ${target.email}` }).waitFor();
    expect(await fact('Name').textContent()).toBe('Margaret Hamilton');
    expect(await fact('Status').textContent()).toBe('active');
    expect(await fact('Email confirmed').textContent()).toBe('yes');
    expect(await fact('Limits').textContent()).toBe('100 per minute, 10,000 per day, 5 live streams');
    const orgs = page.locator('section[aria-labelledby="user-orgs-title"] tbody tr');
    expect(await orgs.count()).toBe(1);
    expect(await orgs.first().locator('td[data-label="Kind"]').textContent()).toBe('Personal');
    expect(await orgs.first().locator('td[data-label="Their role"]').textContent()).toBe('owner');
    await shoot('admin-user');

    const plan = page.locator('section[aria-labelledby="user-plan-title"]');
    expect(await plan.getByLabel('Requests per minute').count()).toBe(0); // only on enterprise
    await plan.getByLabel('Tier', { exact: true }).selectOption({ label: 'Enterprise' });
    await plan.getByLabel('Requests per minute').fill('5000');
    await plan.getByRole('button', { name: 'Save tier and limits' }).click();
    // Per day is missing: said beside the box, and nothing is sent.
    await plan.getByText('Custom limits need requests per minute and per day').first().waitFor();
    expect(await plan.getByLabel('Requests per day').getAttribute('aria-invalid')).toBe('true');
    await shoot('admin-user-limits-refused');
    expect((await accountChanges()).data).toHaveLength(0);

    await plan.getByLabel('Requests per day').fill('200000');
    await plan.getByLabel('Requests per day').press('Enter');
    await page.getByText(`Saved: ${target.email} is on the enterprise tier, 5,000 per minute, 200,000 per day, 50 live streams (custom).`).waitFor();
    expect(await fact('Tier').textContent()).toBe('Enterprise');
    expect(await plan.getByLabel('Requests per minute').inputValue()).toBe('5000');
    const enterprise = await admin.api.admin.getUser(targetId);
    expect([enterprise.tier, enterprise.limits.per_minute, enterprise.limits.per_day]).toEqual(['enterprise', 5000, 200000]);
    await shoot('admin-user-enterprise');

    await plan.getByLabel('Tier', { exact: true }).selectOption({ label: 'Standard' });
    await plan.getByRole('button', { name: 'Save tier and limits' }).click();
    await page.getByText(`Saved: ${target.email} is on the standard tier, 1,000 per minute, 100,000 per day, 50 live streams.`).waitFor();
    expect(await fact('Tier').textContent()).toBe('Standard');
    const standard = await admin.api.admin.getUser(targetId);
    expect([standard.tier, standard.custom_limits]).toEqual(['standard', null]);

    // The personal organization's own page says the same (it is where a user's plan lives).
    await orgs.first().getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Admin: / }).waitFor();
    await page.locator('section[aria-labelledby="org-plan-title"]').waitFor();
    expect(await fact('Tier').textContent()).toBe('Standard');
    expect(await fact('Kind').textContent()).toBe('Personal');
    await shoot('admin-organization');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: `Admin: ${target.email}` }).waitFor();
    expectFailedResponses([]);
  });

  it('disables the user after a confirmation (signed out everywhere; their key and sign-in get 403 account_disabled), then enables them again', async () => {
    expect((await target.api.agents.list()).data).toEqual([]);
    const account = page.locator('section[aria-labelledby="user-title"]');

    // Cancel first: nothing changes.
    await account.getByRole('button', { name: 'Disable' }).click();
    let dialog = page.getByRole('dialog', { name: `Disable ${target.email}?` });
    await dialog.waitFor();
    expect(await journey.focused()).toBe('Cancel');
    await shoot('admin-user-disable');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await admin.api.admin.getUser(targetId)).disabled).toBe(false);

    await account.getByRole('button', { name: 'Disable' }).click();
    await dialog.getByRole('button', { name: 'Disable account' }).click();
    await page.getByText(`${target.email} is disabled`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await fact('Status').textContent()).toBe('disabled');
    // Their sessions are signed out (the SDK's refresh is refused too); their key is refused as disabled.
    await expect(target.api.agents.list()).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    await expect(targetKey.agents.list()).rejects.toMatchObject({ status: 403, code: 'account_disabled' });
    const signIn = () => createGatehouse({ baseUrl: journey.server.base, tokenStore: memoryTokenStore() }).auth.login({ username: target.email, password: target.password });
    await expect(signIn()).rejects.toMatchObject({ status: 403, code: 'account_disabled' });
    await shoot('admin-user-disabled');

    // The list's status filter finds them among the disabled accounts alone.
    await page.getByRole('link', { name: 'All users' }).click();
    await page.getByLabel('Status').selectOption({ label: 'Disabled' });
    await expect.poll(() => userRows().count()).toBe(1);
    expect(await userRows().first().locator('td[data-label="Status"]').textContent()).toBe('disabled');
    await userRows().first().getByRole('link', { name: target.email }).click();

    await account.getByRole('button', { name: 'Enable' }).click();
    dialog = page.getByRole('dialog', { name: `Enable ${target.email}?` });
    await dialog.getByRole('button', { name: 'Enable account' }).click();
    await page.getByText(`${target.email} is enabled`).waitFor();
    expect(await fact('Status').textContent()).toBe('active');
    // The key works again; the session signed out when disabled stays out, and signing in works.
    expect((await targetKey.agents.list()).data).toEqual([]);
    await expect(target.api.agents.list()).rejects.toMatchObject({ status: 401 });
    await target.api.auth.login({ username: target.email, password: target.password });
    expect((await target.api.agents.list()).data).toEqual([]);
    expectFailedResponses([]);
  });

  it('the user’s security log shows each change the admin made, by whom, filtered to that type', async () => {
    await page.reload();
    const log = page.locator('section[aria-labelledby="user-security-log-title"]');
    const changes = log.locator('tbody tr', { hasText: 'Account changed by an administrator' });
    await changes.first().waitFor();
    // Newest first: enabled, disabled, standard, enterprise with its limits.
    expect(await changes.locator('td[data-label="Details"]').allTextContents()).toEqual([
      expect.stringContaining('Changesenabled'),
      expect.stringContaining('Changesdisabled'),
      expect.stringContaining('Changestier: standard'),
      expect.stringContaining('Changestier: enterprise; limits: 5000 per minute, 200000 per day'),
    ]);
    const adminId = (await admin.api.me.get()).id;
    expect(await changes.first().locator('td[data-label="Details"]').textContent()).toContain(`By admin${adminId}`);
    // The rest of the log is there too (the sign-ins of the journey).
    expect(await log.locator('tbody tr', { hasText: 'Signed in' }).count()).toBeGreaterThan(0);
    await log.getByLabel('Show').selectOption({ label: 'Account changed by an administrator' });
    await expect.poll(() => log.locator('tbody tr').count()).toBe(4);
    await log.scrollIntoViewIfNeeded();
    await shoot('admin-user-security-log');
    // The user sees the same events in their own log.
    expect((await accountChanges()).data).toHaveLength(4);
    expectFailedResponses([]);
  });

  it('at 1280 and 1440 px wide, the users list and a user’s page keep addresses, dates and words whole, and the header (with Admin) one row', async () => {
    // Someone with a long name and address, signed in from an IPv6 address with a browser's whole user agent.
    const long = await journey.signUp({ name: 'Maximiliana Wilhelmina Featherstonehaugh-Cholmondeley', email: `maximiliana.featherstonehaugh.${uniqueSuffix()}@engineering.example.com` });
    await clientFrom(journey.server.base, { ip: IPV6, userAgent: LONG_USER_AGENT }).auth.login({ username: long.email, password: long.password });
    await page.goto('/admin');
    await page.getByRole('heading', { level: 1, name: 'Admin: Users' }).waitFor();
    await userRows().filter({ hasText: long.email }).waitFor();
    await journey.checkWideLayout('admin-users');
    await userRows().filter({ hasText: long.email }).getByRole('link', { name: long.email }).click();
    await page.getByRole('heading', { level: 1, name: `Admin: ${long.email}` }).waitFor();
    await page.locator('section[aria-labelledby="user-security-log-title"] tbody tr', { hasText: IPV6 }).waitFor();
    await journey.checkWideLayout('admin-user');
    expectFailedResponses([]);
  });

  it('a non-admin: no Admin entry, and /admin says it is for admins only (the API refuses them too)', async () => {
    const member = await journey.signUp({ name: 'Norma Member' });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    await journey.signIn(member);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Agents', 'Chats', 'Webhooks', 'Settings']);
    await page.goto('/admin');
    await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'For admins only.' }).waitFor();
    await shoot('admin-only');
    await page.goto(targetPath);
    await page.getByRole('alert').filter({ hasText: 'For admins only.' }).waitFor();
    expect(await page.getByText(target.email).count()).toBe(0);
    await expect(member.api.admin.listUsers()).rejects.toMatchObject({ status: 403 });
    await expect(member.api.admin.getUser(targetId)).rejects.toMatchObject({ status: 403 });
    expectFailedResponses([]);
    expect(journey.consoleErrors).toEqual([]);
  });
});
