/**
 * A new user's whole journey through the dashboard, in Debian's Chromium against a real server:
 * sign up, log out and in, confirm the email, Settings → API keys (keyboard only: create a key,
 * read it once, copy it), use the key from here, revoke it and see it fail; a key with its own limits
 * used from here, renamed and rolled, whose usage chart must show exactly those requests (totals
 * read from the legend, lines checked on the canvas and in its screenshot); agents, webhooks,
 * password reset, two-step verification (TOTP, recovery codes, step-up), passkeys (Chromium's
 * virtual authenticator), sign-in with an OpenID provider (oidc-provider on loopback, its own sign-in
 * form) and linking one in settings; chats, with a reply streamed from here (as an agent's runtime)
 * growing on the open page. Every page is checked by axe-core and photographed at desktop and phone
 * width (journey-harness.ts).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatehouse } from '@gatehouse/sdk';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, skipJourneys, useJourney, type RunningServer } from './journey-harness.ts';
import { README_IMAGE_DIR } from './support/paths.ts';
import { IPV6, LONG_USER_AGENT, clientFrom } from './support/wide-layout.ts';
import { startTestIssuer, type TestIssuer } from '../../server/test/oidc-issuer.ts';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const user = {
  name: 'Ada Lovelace',
  email: `ada.${Date.now().toString(36)}@example.com`,
  password: 'Vivid-Otter-Quarry-42',
  newPassword: 'Lantern-Mosaic-Harbor-77',
};

let server: RunningServer;
let issuer: TestIssuer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let screenshotDir: string;
const chartShots: string[] = [];

const OUTCOMES = { ok: 'OK', rate_limited: 'Rate limited', unauthorized: 'Unauthorized', forbidden: 'Forbidden' } as const;
type Outcome = keyof typeof OUTCOMES;

/** The totals a usage chart shows in its legend ("OK 3", "Rate limited 1", …). */
async function chartTotals(chart: Locator): Promise<Record<Outcome, number>> {
  const items = await chart.getByRole('list', { name: 'Requests by outcome' }).getByRole('listitem').allTextContents();
  const totals = {} as Record<Outcome, number>;
  for (const [key, label] of Object.entries(OUTCOMES) as [Outcome, string][]) {
    const text = items.map((t) => t.trim()).find((t) => t.startsWith(`${label} `));
    totals[key] = Number(/([\d,]+)$/.exec(text ?? '')?.[1]?.replace(/,/g, '') ?? NaN);
  }
  return totals;
}

/**
 * The pixels of each outcome's colour (styles.css, --chart-*) in a PNG: how many, and how far they
 * rise (a line at zero lies flat; one reaching n requests climbs). Decoded in the page (the CSP
 * allows data: images), for the chart's live canvas and for its screenshot alike.
 */
async function inkOf(png: string): Promise<Record<Outcome, { count: number; rise: number }>> {
  return page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const { data, width } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const root = getComputedStyle(document.documentElement);
    const ink = {} as Record<string, { count: number; rise: number }>;
    for (const key of ['ok', 'rate_limited', 'unauthorized', 'forbidden']) {
      const hex = root.getPropertyValue(`--chart-${key.replace('_', '-')}`).trim();
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
      let count = 0;
      let top = Infinity;
      let bottom = -Infinity;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! < 200 || Math.hypot(data[i]! - r, data[i + 1]! - g, data[i + 2]! - b) > 40) continue;
        const y = Math.floor(i / 4 / width);
        count++;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
      ink[key] = { count, rise: count ? bottom - top : 0 };
    }
    return ink;
  }, png);
}

/** A usage chart's canvas as drawn now, and a screenshot of it (saved beside the page screenshots): the colours of both. */
async function chartInk(chart: Locator, name: string) {
  const plot = chart.locator('.chart-plot');
  const live = await inkOf(await plot.locator('canvas').evaluate((c: HTMLCanvasElement) => c.toDataURL('image/png')));
  const shot = await plot.screenshot({ path: join(screenshotDir, `chart-${name}.png`) });
  chartShots.push(`chart-${name}`);
  return { live, shot: await inkOf(`data:image/png;base64,${shot.toString('base64')}`) };
}

describe.skipIf(skipJourneys)('dashboard journey (Chromium)', () => {
  const journey = useJourney({
    name: 'journey',
    clipboard: true,
    serverEnv: async () => {
      // A native client: its loopback redirect URI matches the server's port, whichever it gets (RFC 8252).
      issuer = await startTestIssuer([{ client_id: 'dashboard', client_secret: 'dashboard-journey-secret', application_type: 'native', redirect_uris: ['http://127.0.0.1/v1/auth/oidc/test-idp/callback'] }], { openAccounts: true });
      return {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        // Sessions from an IPv6 address (X-Forwarded-For) for the wide-layout checks.
        TRUST_PROXY: 'true',
        OIDC_PROVIDERS: JSON.stringify([{ id: 'test-idp', name: 'Test IdP', issuer: issuer.url, client_id: 'dashboard', client_secret: 'dashboard-journey-secret' }]),
      };
    },
  });
  const { shoot, tabTo, focused, expectFailedResponses, inOwnContext, consoleErrors, shots } = journey;
  beforeAll(() => void ({ server, browser, context, page, screenshotDir } = journey));
  afterAll(async () => {
    await issuer?.close();
  });

  it('sends the dashboard with a strict Content-Security-Policy', async () => {
    const res = await page.goto('/');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toBe(CSP);
    expect(res?.headers()['x-frame-options']).toBe('DENY');
    expect(res?.headers()['referrer-policy']).toBe('no-referrer');
    // Signed out, / sends you to the login page.
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('signs up, showing the server’s message for a refused password first', async () => {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your account' }).waitFor();
    await page.getByLabel('Name').fill(user.name);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('password123');
    await page.getByRole('button', { name: 'Create account' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/common|breached|guess/i);
    expect(await alert.textContent()).toMatch(/Request id: req_/);
    await expect.poll(() => page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expectFailedResponses(['POST /v1/auth/register 400']);
    await shoot('signup-error');

    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('shows the tier and today’s usage against the limits', async () => {
    await page.getByText('Usage today').waitFor();
    await page.locator('meter').first().waitFor();
    const text = await page.locator('main').textContent();
    expect(text).toContain('Free');
    expect(text).toMatch(/of 10,000 requests/);
    expect(text).toMatch(/of 100 requests/);
    expect(text).toContain('not confirmed yet');
    // The account's requests over time: sign-up and this page's own calls are there already.
    const history = page.getByRole('region', { name: 'Requests over time' });
    await history.getByRole('img', { name: /^Requests per hour, last 24 hours/ }).waitFor();
    expect((await chartTotals(history)).ok).toBeGreaterThan(0);
    await shoot('overview');
  });

  it('logs out and logs in again (a wrong password first)', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    await page.getByText('You have logged out.').waitFor();
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/email or password|incorrect|wrong|invalid/i);
    expectFailedResponses(['POST /v1/auth/login 401']);
    await shoot('login-error');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('confirms the email address from the mailed link', async () => {
    const token = server.mailedToken('verify-email');
    expect(token).toBeTruthy();
    await page.goto(`/verify-email?token=${encodeURIComponent(token!)}`);
    await page.getByText('Your email address is confirmed').waitFor();
    // The single-use token does not stay in the address bar or history.
    expect(new URL(page.url()).search).toBe('');
    await shoot('verify-email');
    await page.getByRole('link', { name: 'Go to the overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText('Usage today').waitFor();
    expect(await page.locator('main').textContent()).not.toContain('not confirmed yet');
  });

  it('Settings: profile, password and sessions', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Profile' }).waitFor();
    await page.getByLabel('Name').fill('Ada King');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your name is saved.').waitFor();
    await shoot('settings-profile');

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Password' }).waitFor();
    await shoot('settings-password');

    // A second session, from a program: the page lists it beside this one and revokes it.
    const login = await fetch(`${server.base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: JSON.stringify({ username: user.email, password: user.password }),
    });
    expect(login.status).toBe(200);
    const { access_token: otherToken } = (await login.json()) as { access_token: string };
    const me = () => fetch(`${server.base}/v1/users/me`, { headers: { authorization: `Bearer ${otherToken}` } }).then((r) => r.status);
    expect(await me()).toBe(200);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Sessions' }).waitFor();
    await page.getByText('this session', { exact: true }).waitFor();
    // The sign-up session was logged out: this one and the program's remain.
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await shoot('settings-sessions');
    await page.getByRole('button', { name: /^Revoke session: curl/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke session' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByText('this session', { exact: true }).waitFor();
    expect(await me()).toBe(401);
  });

  let secret = '';

  it('Settings → API keys: creates a key with the keyboard alone and shows the secret once', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: API keys' }).waitFor();
    await page.getByText('No API keys yet.').waitFor();
    await shoot('settings-api-keys');

    await tabTo('#field-key-name');
    await page.keyboard.type('CI robot');
    await tabTo('input[value="chats:write"]');
    await page.keyboard.press('Space'); // untick one scope
    await tabTo('select#field-expiry');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Create key');
    await page.keyboard.press('Enter');

    const secretBox = page.getByRole('textbox', { name: /Your new key/ });
    await secretBox.waitFor();
    secret = await secretBox.inputValue();
    expect(secret).toMatch(/^gth_[A-Za-z0-9]{40}$/);
    // Focus moved to the new secret's heading; the next Tabs reach it and its Copy button.
    expect(await focused()).toBe('new-api-key-title');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Copy');
    await page.keyboard.press('Enter');
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shoot('api-key-created');

    // The list shows the key by prefix, never the secret.
    const row = page.locator('tbody tr', { hasText: 'CI robot' });
    await row.waitFor();
    expect(await row.textContent()).toContain(secret.slice(0, 8));
    expect(await row.textContent()).not.toContain('chats:write');
    expect(await row.textContent()).toMatch(/never/); // last used
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('heading', { name: 'Create an API key' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.locator('tbody tr', { hasText: 'CI robot' }).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('the key works against the API', async () => {
    const res = await fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], next_cursor: null });
    await page.reload();
    await page.locator('tbody tr', { hasText: 'CI robot' }).waitFor();
    await shoot('api-keys-list');
  });

  it('revokes the key after a confirmation (Escape cancels), and the key stops working', async () => {
    const revoke = page.getByRole('button', { name: 'Revoke the key CI robot' });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
    await dialog.waitFor();
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await focused()).toBe('Revoke');
    expect((await fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);

    await revoke.click();
    await dialog.waitFor();
    await shoot('api-key-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key “CI robot” is revoked').waitFor();
    await page.getByText('No API keys yet.').waitFor();

    const res = await fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  // What the journey does with the metered key, counted the way the usage history counts answers.
  const keyRequests: Record<Outcome, number> = { ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 };
  const OUTCOME_OF: Record<number, Outcome> = { 200: 'ok', 429: 'rate_limited', 401: 'unauthorized', 403: 'forbidden' };
  async function callWith(key: string): Promise<number> {
    const res = await fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    keyRequests[OUTCOME_OF[res.status]!]++;
    return res.status;
  }
  let meteredOld = '';
  let meteredNew = '';

  it('Settings → API keys: a key with its own limits (5 per minute, 3 uses), used from here', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Metered robot');
    await page.getByText('Limits of this key (optional)').click();
    await page.getByLabel('Requests per minute').fill('5');
    // Checked here first (the browser itself refuses fractions and numbers below 1): more than the server allows.
    await page.getByLabel('Number of uses').fill('5000000000');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').getByText('Check the limits of the key.').waitFor();
    expect(await page.getByLabel('Number of uses').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Number of uses').fill('3');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretBox = page.getByRole('textbox', { name: 'Your new key “Metered robot”' });
    await secretBox.waitFor();
    meteredOld = await secretBox.inputValue();
    expect(meteredOld).toMatch(/^gth_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.locator('tbody tr', { hasText: 'Metered robot' });
    await row.waitFor();
    expect(await row.textContent()).toContain('5 per minute');
    expect(await row.textContent()).toContain('3 uses left');

    expect(await callWith(meteredOld)).toBe(200);
    expect(await callWith(meteredOld)).toBe(200);
    await page.reload();
    await expect.poll(() => row.textContent()).toContain('1 use left');
    expectFailedResponses([]);
  });

  it('renames the key and rolls it with an hour’s grace: the new secret shown once, the old one still works for now', async () => {
    await page.getByRole('button', { name: 'Rename the key Metered robot' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the key “Metered robot”' });
    await rename.waitFor();
    expect(await focused()).toBe('field-key-rename');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Billing robot');
    await page.keyboard.press('Enter');
    await page.getByText('The key is renamed “Billing robot”.').waitFor();
    await rename.waitFor({ state: 'hidden' });
    expect(await focused()).toBe('Rename'); // back on the row's button
    const row = page.locator('tbody tr', { hasText: 'Billing robot' });
    await row.waitFor();

    await row.getByRole('button', { name: 'Roll the key Billing robot' }).click();
    const roll = page.getByRole('dialog', { name: 'Roll the key “Billing robot”?' });
    await roll.waitFor();
    await roll.getByLabel('Keep the old secret working').selectOption({ label: 'For 1 hour' });
    await roll.getByRole('button', { name: 'Roll key' }).click();
    const newSecret = page.getByRole('textbox', { name: 'New secret for “Billing robot”' });
    await newSecret.waitFor();
    meteredNew = await newSecret.inputValue();
    expect(meteredNew).toMatch(/^gth_/);
    expect(meteredNew).not.toBe(meteredOld);
    expect(await page.getByRole('dialog').textContent()).toMatch(/The old secret works until .+, then it is refused\./);
    expect(await focused()).toBe('rolled-api-key-title');
    await shoot('api-key-rolled');
    await page.getByRole('dialog').getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(meteredNew);
    await expect.poll(() => row.textContent()).toMatch(/old secret works until/);

    // The old secret within its grace spends the last use; then the key (either secret) is refused: no uses left.
    expect(await callWith(meteredOld)).toBe(200);
    expect(await callWith(meteredNew)).toBe(429);
    expect(keyRequests).toEqual({ ok: 3, rate_limited: 1, unauthorized: 0, forbidden: 0 });
    await page.reload();
    await expect.poll(() => row.textContent()).toContain('0 uses left');
    await shoot('api-keys-limits');
  });

  it('the key’s page charts exactly the requests made with it, by hour and by day', async () => {
    await page.getByRole('link', { name: 'Billing robot: usage and details' }).click();
    await page.getByRole('heading', { level: 2, name: 'Billing robot' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/settings\/api-keys\/key_/);
    expect(await page.locator('main').textContent()).toMatch(/Old secret\s*works until/);
    const chart = page.getByRole('region', { name: 'Requests with this key' });
    await chart.getByRole('img', { name: /^Requests per hour, last 24 hours: 3 ok, 1 rate limited/ }).waitFor();
    expect(await chartTotals(chart)).toEqual(keyRequests);
    expect(await chart.getByRole('button', { name: 'Last 24 hours' }).getAttribute('aria-pressed')).toBe('true');
    await shoot('api-key-usage');

    // Lines drawn, on the canvas and in the screenshot alike: OK climbs to 3, rate limited to 1 (a lower peak), the others stay flat at zero.
    for (const [period, name] of [['Last 24 hours', 'key-hours'], ['Last 30 days', 'key-days']] as const) {
      if (period === 'Last 30 days') {
        await chart.getByRole('button', { name: period }).click();
        await chart.getByRole('img', { name: /^Requests per day, last 30 days/ }).waitFor();
        expect(await chartTotals(chart)).toEqual(keyRequests);
      }
      const ink = await chartInk(chart, name);
      for (const drawn of [ink.live, ink.shot]) {
        expect(drawn.ok.count, `${name}: OK line`).toBeGreaterThan(30);
        expect(drawn.rate_limited.count, `${name}: rate-limited line`).toBeGreaterThan(10);
        expect(drawn.ok.rise).toBeGreaterThan(drawn.rate_limited.rise + 20);
        expect(drawn.rate_limited.rise).toBeGreaterThan(20);
        expect(drawn.unauthorized.rise).toBeLessThan(12);
        expect(drawn.forbidden.rise).toBeLessThan(12);
      }
    }
  });

  it('at 1280 and 1440 px wide, Sessions and API keys keep addresses, ids, dates and words whole, and the header one row', async () => {
    await journey.checkWideLayout('api-key-usage', { tables: false }); // its table is for screen readers only
    // A session from an IPv6 address with a browser's whole user agent, and a key with a long name.
    const phone = clientFrom(server.base, { ip: IPV6, userAgent: LONG_USER_AGENT });
    await phone.auth.login({ username: user.email, password: user.password });
    const longKey = await phone.apiKeys.create({ name: 'Nightly reconciliation export for the finance data warehouse', scopes: ['agents:read'] });
    await page.goto('/settings/sessions');
    await page.getByRole('heading', { level: 1, name: 'Settings: Sessions' }).waitFor();
    await page.getByRole('cell', { name: IPV6, exact: true }).waitFor();
    await page.getByRole('cell', { name: '127.0.0.1', exact: true }).first().waitFor();
    await journey.checkWideLayout('sessions');
    await page.goto('/settings/api-keys');
    await page.locator('tbody tr', { hasText: 'Nightly reconciliation export' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Billing robot' }).waitFor();
    await journey.checkWideLayout('api-keys');
    await phone.apiKeys.revoke(longKey.id);
    await phone.auth.logout();
    expectFailedResponses([]);
  });

  it('the overview charts the whole account’s requests, the key’s among them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    const chart = page.getByRole('region', { name: 'Requests over time' });
    await chart.getByRole('img', { name: /^Requests per hour, last 24 hours/ }).waitFor();
    const hours = await chartTotals(chart);
    expect(hours.ok).toBeGreaterThan(keyRequests.ok); // the dashboard's own requests too
    expect(hours.rate_limited).toBe(keyRequests.rate_limited);
    const ink = await chartInk(chart, 'overview-hours');
    for (const drawn of [ink.live, ink.shot]) {
      expect(drawn.ok.count).toBeGreaterThan(30);
      expect(drawn.ok.rise).toBeGreaterThan(20);
    }
    await chart.getByRole('button', { name: 'Last 30 days' }).click();
    await chart.getByRole('img', { name: /^Requests per day, last 30 days/ }).waitFor();
    expect((await chartTotals(chart)).ok).toBeGreaterThanOrEqual(hours.ok);
    const days = await chartInk(chart, 'overview-days');
    expect(days.live.ok.rise).toBeGreaterThan(20);
    expect(days.shot.ok.rise).toBeGreaterThan(20);
    await shoot('overview-usage');
    expectFailedResponses([]);
  });

  it('Agents: create and delete', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    for (const [name, model] of [['Support bot', 'gpt-4o'], ['Scratch agent', 'llama-3.1-8b']] as const) {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Model').fill(model);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByText(`The agent “${name}” is created.`).waitFor();
      await page.locator('tbody tr', { hasText: name }).waitFor();
    }
    // A refused value shows the server's own words beside the field.
    await page.getByLabel('Name').fill('Bad model');
    await page.getByLabel('Model').fill('has spaces');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Model').getAttribute('aria-invalid')).toBe('true');
    expectFailedResponses(['POST /v1/agents 400']);
    await shoot('agents');

    await page.getByRole('button', { name: 'Delete the agent Scratch agent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete agent' }).click();
    await page.getByText('The agent “Scratch agent” is deleted.').waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
  });

  /** An agent's runtime, acting from here with an API key of the signed-in account (chats only). */
  async function agentRuntime() {
    const stored = await page.evaluate(() => localStorage.getItem('gatehouse.dashboard.session'));
    const { accessToken } = JSON.parse(stored!) as { accessToken: string };
    const res = await fetch(`${server.base}/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ name: 'Agent runtime', scopes: ['chats:read', 'chats:write'] }),
    });
    expect(res.status).toBe(201);
    return createGatehouse({ baseUrl: server.base, apiKey: ((await res.json()) as { key: string }).key });
  }

  it('Chats: starts a chat with an agent and sends a message from the composer', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chats' }).click();
    await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor();
    await page.getByText('No chats yet.').waitFor();
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Support bot' });
    await page.getByLabel('Title').fill('Refund question');
    await page.getByRole('button', { name: 'Start chat' }).click();
    await page.getByRole('heading', { level: 1, name: 'Refund question' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/chats\/cht_[0-9a-z]{26}$/);
    await page.getByText('No messages yet.').waitFor();

    // Enter sends (Shift+Enter would start a new line); the box empties once the message is in.
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Where is my refund?');
    await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByRole('listitem').filter({ hasText: 'Where is my refund?' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).inputValue()).toBe('');
    expect(await messages.getAttribute('aria-live')).toBe('polite');
  });

  it('Chats: a reply streamed by the agent’s runtime grows on the open page, delta by delta, then completes', async () => {
    const chatId = new URL(page.url()).pathname.split('/').pop()!;
    const runtime = await agentRuntime();
    const messages = page.getByRole('list', { name: 'Messages' });
    const reply = messages.getByRole('listitem').filter({ hasText: 'Support bot' });
    const replyText = () => reply.locator('.message-text').textContent({ timeout: 1_000 }).catch(() => null);

    const started = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
    await reply.getByText('writing…').waitFor();
    // The user's message came back on the stream as well (it precedes the reply there): still shown once.
    expect(await messages.getByRole('listitem').filter({ hasText: 'Where is my refund?' }).count()).toBe(1);

    const pieces = ['Your refund', ' was sent on Monday;', ' expect it within three working days.'];
    let text = '';
    for (const [i, piece] of pieces.entries()) {
      await runtime.chats.messages.appendDelta(chatId, started.id, { sequence: i + 1, content: piece });
      text += piece;
      // Each intermediate text is on screen, still marked as being written, before the next piece is sent.
      await expect.poll(replyText).toBe(text);
      expect(await reply.getByText('writing…').isVisible()).toBe(true);
      if (i === 1) await shoot('chat-streaming');
      await sleep(250);
    }
    await runtime.chats.messages.complete(chatId, started.id);
    await reply.getByText('writing…').waitFor({ state: 'detached' });
    expect(await replyText()).toBe(text);
    expect(await messages.getByRole('listitem').count()).toBe(2);

    // A rename elsewhere (chat.updated on the stream), then one here.
    await runtime.chats.update(chatId, { title: 'Refund for order 1234' });
    await page.getByRole('heading', { level: 1, name: 'Refund for order 1234' }).waitFor();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Title').fill('Refund sent');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('heading', { level: 1, name: 'Refund sent' }).waitFor();
    expect(await focused()).toBe('Rename');
    await shoot('chat');

    // A reload at /chats/<id> (the server serves the page there) in the middle of a second reply:
    // the list shows it part-written, the stream carries on from there, nothing doubled or lost.
    const second = await runtime.chats.messages.create(chatId, { role: 'assistant', status: 'streaming' });
    await runtime.chats.messages.appendDelta(chatId, second.id, { sequence: 1, content: 'Anything' });
    await runtime.chats.messages.appendDelta(chatId, second.id, { sequence: 2, content: ' else?' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Refund sent' }).waitFor();
    const secondReply = messages.getByRole('listitem').filter({ hasText: 'Anything' });
    await secondReply.getByText('writing…').waitFor();
    await runtime.chats.messages.appendDelta(chatId, second.id, { sequence: 3, content: ' Just ask.' });
    await expect.poll(() => secondReply.locator('.message-text').textContent()).toBe('Anything else? Just ask.');
    await runtime.chats.messages.complete(chatId, second.id);
    await secondReply.getByText('writing…').waitFor({ state: 'detached' });
    expect(await secondReply.locator('.message-text').textContent()).toBe('Anything else? Just ask.');
    expect(await messages.getByRole('listitem').filter({ hasText: text }).count()).toBe(1);
    expect(await messages.getByRole('listitem').count()).toBe(3);

    // The list, and the same filtered by agent.
    await page.getByRole('link', { name: 'All chats' }).click();
    await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor();
    const row = page.locator('tbody tr', { hasText: 'Refund sent' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Support bot');
    await page.getByLabel('Show chats with').selectOption({ label: 'Support bot' });
    await expect.poll(() => new URL(page.url()).searchParams.get('agent')).toMatch(/^agt_/);
    await row.waitFor();
    await shoot('chats');

    // Deleted elsewhere while open: the page says so, and the stream ends.
    await row.getByRole('link', { name: 'Refund sent' }).click();
    await messages.getByRole('listitem').filter({ hasText: text }).waitFor();
    await runtime.chats.delete(chatId);
    await page.getByText('This chat was deleted elsewhere').waitFor();
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete chat' }).count()).toBe(0);
  });

  it('Chats: deletes a chat from its page after a confirmation', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chats' }).click();
    await page.getByText('No chats yet.').waitFor();
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Support bot' });
    await page.getByRole('button', { name: 'Start chat' }).click();
    await page.getByRole('heading', { level: 1, name: 'Untitled chat' }).waitFor();
    await page.getByRole('button', { name: 'Delete chat' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete chat' }).click();
    await page.getByText('The chat is deleted.').waitFor();
    await page.getByRole('link', { name: 'Back to your chats' }).click();
    await page.getByText('No chats yet.').waitFor();
    expectFailedResponses([]);
  });

  it('Webhooks: create (secret shown once) and delete', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByLabel('URL').fill('http://127.0.0.1:9/hooks/gatehouse');
    await page.getByLabel(/^agent\.\*/).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('textbox', { name: 'Signing secret of the new endpoint' });
    await secretBox.waitFor();
    expect(await secretBox.inputValue()).toMatch(/^whsec_/);
    await page.locator('tbody tr', { hasText: '127.0.0.1:9' }).waitFor();
    await shoot('webhooks');
    await page.getByRole('button', { name: 'I have stored it' }).click();

    await page.getByRole('button', { name: /Delete the endpoint/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
  });

  it('forgot password → the mailed reset link → log in with the new password', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    await shoot('forgot-password');

    await expect.poll(() => server.mailedToken('reset-password'), { timeout: 10_000 }).toBeTruthy();
    await page.goto(`/reset-password?token=${encodeURIComponent(server.mailedToken('reset-password')!)}`);
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.getByLabel('New password', { exact: true }).fill(user.newPassword);
    await page.getByLabel('New password again').fill(user.newPassword);
    // A reset usually follows a compromise: revoking every API key is offered, and on by default.
    expect(await page.getByLabel('Also revoke every API key').isChecked()).toBe(true);
    await shoot('reset-password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('Your password is changed').waitFor();
    await page.getByText('Every API key was revoked').waitFor();

    await page.getByRole('link', { name: 'Log in with the new password' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.newPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('Ada King');
  });

  it('Settings → Security: turns on two-step verification; a login and an older session then need the factor', async () => {
    // A session from before the factor exists (another browser): it will have to prove it.
    const olderContext = await browser.newContext({ viewport: DESKTOP, baseURL: server.base });
    const older = await olderContext.newPage();
    await older.goto('/login');
    await older.getByLabel('Email').fill(user.email);
    await older.getByLabel('Password').fill(user.newPassword);
    await older.getByRole('button', { name: 'Log in' }).click();
    await older.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Security' }).waitFor();
    await shoot('settings-security');
    await page.getByRole('region', { name: 'Two-step verification' }).getByLabel('Your password').fill(user.newPassword);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('heading', { name: 'Scan this code with your authenticator app' }).waitFor();
    // The QR code is an image the CSP allows (a data: SVG), and the key is there to type by hand.
    expect(await page.getByRole('img', { name: /QR code/ }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const key = (await page.locator('.totp-secret').textContent())!.trim();
    await shoot('totp-enrol');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(key), algorithm: 'SHA1', digits: 6, period: 30 });
    await page.getByLabel('The 6-digit code the app shows').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = (await page.getByRole('list', { name: 'Recovery codes' }).locator('code').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    // Copied and downloaded as they were shown, one a line.
    await page.getByRole('button', { name: 'Copy the codes' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(saved.suggestedFilename()).toBe('gatehouse-recovery-codes.txt');
    const file = readFileSync((await saved.path())!, 'utf8');
    expect(file.trim().split('\n').slice(-10)).toEqual(codes);
    expect(file).toContain('Each one signs you in once');
    await shoot('recovery-codes');
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByText(/^On since/).waitFor();
    expect(await page.getByText(/10 of 10 recovery codes left/).count()).toBe(1);

    // The older session creating a key: the server asks for the factor, the form takes a code and goes on.
    await older.goto('/settings/api-keys');
    await older.getByRole('heading', { level: 1, name: 'Settings: API keys' }).waitFor();
    await older.getByLabel('Name').fill('From the older session');
    await older.getByRole('button', { name: 'Create key' }).click();
    await older.getByText('Confirm it is you').waitFor();
    await older.getByLabel('Code from your authenticator app').fill(codes[0]!);
    await older.getByRole('button', { name: 'Confirm and continue' }).click();
    await older.getByRole('heading', { name: /Your new key “From the older session”/ }).waitFor();
    await olderContext.close();

    // Logging in now takes the password, then the code (here a recovery code).
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You have logged out.').waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.newPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Two-step verification' }).waitFor();
    expectFailedResponses(['POST /v1/auth/login 403']);
    await shoot('login-second-factor');
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();
    expectFailedResponses(['POST /v1/auth/mfa/verify 401']);
    await page.getByLabel('Recovery code').fill(codes[1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    // Back where the logout happened (the login page's `next`).
    await page.getByRole('heading', { level: 1, name: 'Settings: Security' }).waitFor();

    // Off again with a recovery code: the next test logs in with the password alone.
    await page.getByRole('heading', { name: 'Turn two-step verification off' }).waitFor();
    await page.getByLabel('Code from your authenticator app').fill(codes[2]!);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Two-step verification is off.').waitFor();
  });

  it("Settings → Security: adds a passkey with Chromium's virtual authenticator, then signs in with it alone", async () => {
    // Passkeys need a domain: the same server as http://localhost:<port>, in its own context
    // (another origin, so another localStorage: it starts signed out).
    await inOwnContext(server.localhostBase, async (page, passkeyContext) => {
      const cdp = await passkeyContext.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      await page.goto('/login');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.newPassword);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      await page.goto('/settings/security');
      await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
      await page.getByText('No passkeys yet.').waitFor();
      await page.getByLabel('Passkey name').fill('Chromium');
      await page.getByRole('region', { name: 'Passkeys' }).getByLabel('Your password').fill(user.newPassword);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByText('The passkey “Chromium” is added').waitFor();
      await page.getByRole('cell', { name: 'Chromium', exact: true }).waitFor();
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]!.isResidentCredential).toBe(true);
      await shoot('settings-passkeys');

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByText('You have logged out.').waitFor();
      await shoot('login-passkey');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      // Back where the logout happened; the passkey alone signed in (no password, no code).
      await page.getByRole('heading', { level: 1, name: 'Settings: Security' }).waitFor();
      await expect.poll(async () => (await page.getByRole('row').filter({ hasText: 'Chromium' }).textContent()) ?? '').not.toContain('never');
    });
  });

  it('links an OpenID provider in Settings → Security (the password confirms it), and unlinks it', async () => {
    await page.goto('/settings/security');
    await page.getByRole('heading', { name: 'Linked accounts' }).waitFor();
    await page.getByText('No linked accounts yet.').waitFor();
    await page.getByRole('button', { name: 'Link Test IdP' }).click();
    // The provider's own page, in this tab.
    await page.getByRole('button', { name: 'Sign in at the test issuer' }).waitFor();
    expect(new URL(page.url()).origin).toBe(issuer.url);
    await page.getByLabel('Account').fill(`ada.elsewhere.${Date.now().toString(36)}@example.com`);
    await page.getByRole('button', { name: 'Sign in at the test issuer' }).click();
    await page.getByRole('heading', { level: 1, name: 'Link Test IdP' }).waitFor();
    expect(new URL(page.url()).search).toBe(''); // the one-time code left the address bar
    await page.getByLabel('Your password').fill(user.newPassword);
    await page.getByRole('button', { name: 'Link Test IdP' }).click();
    await page.getByText('Test IdP is linked').waitFor();
    await page.getByRole('cell', { name: 'Test IdP', exact: true }).waitFor();
    expectFailedResponses(['POST /v1/users/me/identities 400']); // the first try, without the password
    await shoot('settings-linked-accounts');
    await journey.checkWideLayout('settings-security'); // the passkey's table and the linked account's
    await page.getByRole('button', { name: 'Unlink Test IdP' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await page.getByText('Test IdP is unlinked.').waitFor();
    await page.getByText('No linked accounts yet.').waitFor();
  });

  it('signs a new person up and in with an OpenID provider, which stays their only way in', async () => {
    await inOwnContext(server.base, async (page) => {
      await page.goto('/login?next=%2Fsettings%2Fsecurity');
      await page.getByRole('button', { name: 'Continue with Test IdP' }).waitFor();
      await shoot('login-providers');
      await page.getByRole('button', { name: 'Continue with Test IdP' }).click();
      const email = `grace.${Date.now().toString(36)}@example.com`;
      await page.getByLabel('Account').fill(email);
      await page.getByRole('button', { name: 'Sign in at the test issuer' }).click();
      // Signed in, at the page the login was asked for.
      await page.getByRole('heading', { level: 1, name: 'Settings: Security' }).waitFor();
      await page.getByRole('cell', { name: email, exact: true }).waitFor();
      await page.getByRole('button', { name: 'Unlink Test IdP' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
      await page.getByRole('dialog').getByText('only way into the account').waitFor();
      await page.keyboard.press('Escape');
      // No password to ask for: deleting says a recent sign-in confirms it instead.
      await page.goto('/settings/account');
      await page.getByRole('button', { name: 'Delete my account…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
      await dialog.getByText('Your account has no password').waitFor();
      expect(await dialog.getByLabel('Your password').count()).toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });
  });

  const bob = { name: 'Bob Babbage', email: `bob.${Date.now().toString(36)}@example.com`, password: 'Copper-Willow-Signal-58' };
  let research = '';

  /** The organization switcher in the header. */
  const switcher = () => journey.page.getByRole('combobox', { name: 'Organization' });
  const selectedOrganization = () => switcher().evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent ?? '');

  it('Organizations: creates one from the switcher, switches to it, and creates agents there', async () => {
    await page.goto('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    // The personal organization comes first, and is the one acted for until another is chosen.
    await expect.poll(selectedOrganization).toBe(`${user.name} (personal)`);
    await page.locator('tbody tr', { hasText: 'Support bot' }).waitFor();
    await page.getByRole('button', { name: 'New organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.getByLabel('Name').fill('Research');
    await page.keyboard.press('Enter');
    // Switched: the page reloads its data for the new organization (no agents yet).
    await expect.poll(selectedOrganization).toBe('Research');
    await page.getByText('No agents yet').waitFor();
    research = await switcher().inputValue();
    expect(research).toMatch(/^org_/);
    expect(await page.evaluate(() => localStorage.getItem('gatehouse.dashboard.organization'))).toContain(research);
    for (const name of ['Shared bot', 'Lab assistant']) {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Model').fill('gpt-4o');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByText(`The agent “${name}” is created.`).waitFor();
    }
    // A reload stays in the organization chosen.
    await page.reload();
    await page.locator('tbody tr', { hasText: 'Lab assistant' }).waitFor();
    expect(await selectedOrganization()).toBe('Research');
    expect(await page.locator('tbody tr', { hasText: 'Support bot' }).count()).toBe(0);
    expect(await switcher().locator('option').allTextContents()).toEqual([`${user.name} (personal)`, 'Research']);
    await shoot('organization-switcher');
    expectFailedResponses([]);
  });

  it('Settings → Members: invites a second person by email, with a role', async () => {
    await page.goto('/settings/members');
    await page.getByRole('heading', { level: 1, name: 'Settings: Members' }).waitFor();
    await page.getByRole('cell', { name: user.email, exact: true }).waitFor();
    await page.getByLabel('Email').fill(bob.email);
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`An invitation is mailed to ${bob.email}.`).waitFor();
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByRole('cell', { name: bob.email, exact: true }).waitFor();
    await expect.poll(() => server.mailedToken('accept-invitation'), { timeout: 10_000 }).toMatch(/^gthi_/);
    expectFailedResponses([]);
  });

  it('the second person signs up from the mailed link, confirms the address, accepts, and sees the shared agents', async () => {
    const link = `/accept-invitation?token=${encodeURIComponent(server.mailedToken('accept-invitation')!)}`;
    const earlierVerification = server.mailedToken('verify-email');
    await inOwnContext(server.base, async (page) => {
      const res = await page.goto(link);
      expect(res?.status()).toBe(200);
      await page.getByRole('heading', { level: 1, name: 'Join an organization' }).waitFor();
      // Before signing in, the page says who invites to what (GET /v1/invitations/preview).
      await page.locator('.invitation-preview', { hasText: 'invited you to join Research as member' }).waitFor();
      await page.getByRole('link', { name: 'Log in to accept' }).waitFor();
      await shoot('accept-invitation-signed-out');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Create your account' }).waitFor();
      await page.getByLabel('Name').fill(bob.name);
      await page.getByLabel('Email').fill(bob.email);
      await page.getByLabel('Password', { exact: true }).fill(bob.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      // Back at the invitation, signed in; the address is not confirmed yet.
      await page.getByRole('button', { name: 'Accept the invitation' }).waitFor();
      await page.getByText('Your email address is not confirmed yet.').waitFor();
      await expect.poll(() => server.mailedToken('verify-email'), { timeout: 10_000 }).not.toBe(earlierVerification);
      await page.goto(`/verify-email?token=${encodeURIComponent(server.mailedToken('verify-email')!)}`);
      await page.getByText('Your email address is confirmed').waitFor();

      const again = await page.goto(link);
      if (again?.status() === 404) {
        await page.goto('/');
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await page.evaluate((to) => {
          history.pushState(null, '', to);
          dispatchEvent(new PopStateEvent('popstate'));
        }, link);
      }
      await page.getByRole('button', { name: 'Accept the invitation' }).waitFor();
      expect(await page.getByText('not confirmed yet').count()).toBe(0);
      await shoot('accept-invitation');
      await page.getByRole('button', { name: 'Accept the invitation' }).click();
      // Joined and switched: the overview of Research.
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await expect.poll(selectedOrganization).toBe('Research');
      expect(new URL(page.url()).search).toBe('');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
      await page.locator('tbody tr', { hasText: 'Shared bot' }).waitFor();
      await page.locator('tbody tr', { hasText: 'Lab assistant' }).waitFor();
      await shoot('shared-agents');
      // Their own organization is still theirs, and empty.
      await switcher().selectOption({ label: `${bob.name} (personal)` });
      await page.getByText('No agents yet').waitFor();
      await switcher().selectOption({ label: 'Research' });
      await page.locator('tbody tr', { hasText: 'Shared bot' }).waitFor();
      // A member sees the members, but manages none.
      await page.goto('/settings/members');
      await page.getByRole('cell', { name: user.email, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
    });
  });

  it('Settings → Members: the owner sees the new member, makes them an admin, and reads the audit log', async () => {
    await page.goto('/settings/members');
    const members = page.getByRole('table', { name: 'Members of Research' });
    await members.getByRole('cell', { name: bob.email, exact: true }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await page.getByRole('button', { name: `Change role of ${bob.email}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Role' }).selectOption('admin');
    await dialog.getByRole('button', { name: 'Save role' }).click();
    await page.getByText(`${bob.email} is now an admin.`).waitFor();
    await members.locator('tr', { hasText: bob.email }).getByRole('cell', { name: 'admin', exact: true }).waitFor();
    // Removing asks what becomes of their API keys (cancelled here).
    await page.getByRole('button', { name: `Remove ${bob.email}` }).click();
    await page.getByRole('dialog').getByRole('radio', { name: /Keep them with the organization/ }).waitFor();
    await shoot('members-remove');
    await page.keyboard.press('Escape');
    await shoot('members');
    await journey.checkWideLayout('members');

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click();
    const log = page.getByRole('table', { name: 'Audit log of Research' });
    for (const action of ['organization.created', 'member.invited', 'member.joined', 'member.role_changed']) await log.getByText(action, { exact: true }).waitFor();
    await shoot('audit-log');
    await journey.checkWideLayout('audit-log');

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Organization' }).click();
    await page.getByRole('heading', { level: 2, name: 'Research' }).waitFor();
    await page.getByRole('button', { name: 'Delete Research…' }).waitFor();
    await shoot('organization-settings');
    // Back to the personal organization for the rest of the journey.
    await switcher().selectOption({ label: `${user.name} (personal)` });
    await page.getByRole('button', { name: 'Delete Research…' }).waitFor({ state: 'detached' });
    expect(await page.getByText('Personal (yours alone').count()).toBe(1);
    expectFailedResponses([]);
  });

  it('sends a signed-out visitor of a deep link to log in, and back there afterwards', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    // The logout's round trip must end before the page is left: navigating while it is in flight
    // reloads with the token the server has just revoked (a 401, then a refused refresh).
    await page.getByText('You have logged out.').waitFor();
    await page.goto('/settings/sessions');
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/settings/sessions');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.newPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Sessions' }).waitFor();
  });

  it('printed nothing to the console, and the CSP blocks inline scripts', async () => {
    expect(consoleErrors).toEqual([]);
    expectFailedResponses([]);
    const probe = await context.newPage();
    const violations: string[] = [];
    probe.on('console', (msg) => msg.type() === 'error' && violations.push(msg.text()));
    await probe.goto('/login');
    const ran = await probe.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.body.append(script);
      return (window as { __inlineRan?: boolean }).__inlineRan ?? false;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.join('\n')).toMatch(/Content Security Policy/);
    await probe.close();
  });

  it('saved a desktop and a phone screenshot of every page', () => {
    expect(shots.length).toBeGreaterThanOrEqual(14);
    for (const shot of shots) {
      for (const size of ['desktop', 'phone']) expect(existsSync(join(journey.screenshotDir, `${shot}-${size}.png`)), `${shot}-${size}`).toBe(true);
    }
    // The charts' own pictures, each checked for its lines when it was taken (chartInk).
    expect(chartShots).toHaveLength(4);
    for (const shot of chartShots) expect(existsSync(join(journey.screenshotDir, `${shot}.png`)), shot).toBe(true);
    // The pictures in docs/guides/dashboard.md change only when asked to (UPDATE_README_IMAGES=1), so a test run
    // leaves the working tree clean.
    if (process.env.UPDATE_README_IMAGES !== '1') return;
    mkdirSync(README_IMAGE_DIR, { recursive: true });
    copyFileSync(join(journey.screenshotDir, `${shots.find((s) => s.endsWith('api-key-created'))}-desktop.png`), join(README_IMAGE_DIR, 'dashboard-api-keys-desktop.png'));
    copyFileSync(join(journey.screenshotDir, `${shots.find((s) => s.endsWith('overview'))}-phone.png`), join(README_IMAGE_DIR, 'dashboard-overview-phone.png'));
  });
});
