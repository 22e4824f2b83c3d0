/**
 * An operator's journey through what the dashboard runs beyond a new user's first steps, in
 * Chromium against a real server: the empty states of a fresh account, an agent edited from its
 * row, a webhook endpoint's own page with a real receiver on loopback (test events, the
 * deliveries and every attempt with the receiver's answer, the status filter, disable and enable,
 * an endpoint the receiver's 410 Gone disabled and its re-enabling, a delivery redelivered after
 * the receiver recovers, "Redeliver all failed since…", the signing secret rotated with and
 * without an overlap, checked at the receiver with the `standardwebhooks` library), and the
 * security log (names, IPs, devices, details, a type filter, Show more). axe-core checks every
 * page photographed.
 */
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Received, type Receiver } from '../../server/test/webhooks/receiver.ts';
import { skipJourneys, useJourney, type TestUser } from './journey-harness.ts';
import { IPV6, LONG_USER_AGENT, clientFrom } from './support/wide-layout.ts';

describe.skipIf(skipJourneys)('dashboard journey: operations (Chromium)', () => {
  // Retries a second apart, three attempts in all: a failing delivery is given up within seconds.
  const journey = useJourney({ name: 'operations', serverEnv: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1', TRUST_PROXY: 'true' } });
  const { shoot, expectFailedResponses } = journey;
  let page: Page;
  let user: TestUser;
  let receiver: Receiver;

  beforeAll(async () => {
    page = journey.page;
    receiver = await startReceiver({ status: 500, body: 'receiver down for maintenance' });
    user = await journey.signUp({ name: 'Grace Hopper' });
    // The webhook pages poll their deliveries while the test calls the API as the same account: on
    // a fast machine that outran the free tier's 100 requests a minute (a 429 in the page). The
    // budget has journeys of its own; here it must stay out of the way.
    const tier = await journey.server.cli(['users', 'set-tier', user.email, 'standard']);
    expect(tier.code, tier.output).toBe(0);
    await journey.signIn(user);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  it('a fresh account: every list says what is missing and what to do next', async () => {
    const empties: [path: string, heading: string, title: string, next: RegExp, shot: string][] = [
      ['/agents', 'Agents', 'No agents yet.', /Create one with the form above/, 'agents-empty'],
      ['/chats', 'Chats', 'No chats yet.', /Start one with the form above/, 'chats-empty'],
      ['/webhooks', 'Webhooks', 'No webhook endpoints yet.', /Add one above/, 'webhooks-empty'],
      ['/settings/api-keys', 'Settings: API keys', 'No API keys yet.', /Create one above/, 'api-keys-empty'],
      ['/settings/members', 'Settings: Members', 'No pending invitations.', /wait here until they are accepted/, 'members-empty'],
    ];
    for (const [path, heading, title, next, shot] of empties) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      const empty = page.locator('.empty-state', { hasText: title });
      await empty.waitFor();
      expect(await empty.textContent()).toMatch(next);
      // No table drawn for a list with nothing in it.
      expect(await empty.locator('xpath=ancestor::section[1]').locator('table').count()).toBe(0);
      await shoot(shot);
    }
    // Chats without an agent: the form itself says to create one first.
    await page.goto('/chats');
    await page.locator('.empty-state', { hasText: 'No agents yet.' }).getByRole('link', { name: 'create an agent' }).waitFor();
    expectFailedResponses([]);
  });

  it('Agents: edits an agent from its row (a refused value first), and the API has the new values', async () => {
    const agent = await user.api.agents.create({ name: 'Triage bot', model: 'gpt-4o', instructions: 'Sort the tickets.' });
    await page.goto('/agents');
    await page.getByRole('button', { name: 'Edit the agent Triage bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit the agent “Triage bot”' });
    await dialog.waitFor();
    expect(await journey.focused()).toBe('field-edit-agent-name');
    expect(await dialog.getByLabel('Instructions').inputValue()).toBe('Sort the tickets.');
    await dialog.getByLabel('Model').fill('not a model');
    await dialog.getByRole('button', { name: 'Save agent' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByLabel('Model').getAttribute('aria-invalid')).toBe('true');
    expectFailedResponses([`PATCH /v1/agents/${agent.id} 400`]);
    await shoot('agent-edit');

    await dialog.getByLabel('Name').fill('Triage lead');
    await dialog.getByLabel('Model').fill('gpt-4.1');
    await dialog.getByLabel('Instructions').fill('Sort the tickets, urgent ones first.');
    await dialog.getByLabel('Name').press('Enter'); // Enter in a field submits the form
    await page.getByText('The agent “Triage lead” is saved.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await journey.focused()).toBe('Edit'); // back on the row's button
    const row = page.locator('tbody tr', { hasText: 'Triage lead' });
    expect(await row.textContent()).toContain('gpt-4.1');
    const saved = await user.api.agents.get(agent.id);
    expect(saved).toMatchObject({ name: 'Triage lead', model: 'gpt-4.1', instructions: 'Sort the tickets, urgent ones first.' });
    await shoot('agents-edited');
  });

  let endpointPath = '';
  /** The secret shown when the endpoint was added. */
  let firstSecret = '';
  const endpointId = () => endpointPath.split('/').pop()!;

  it('Webhooks: the list links to the endpoint’s page, which has no deliveries yet', async () => {
    await page.goto('/webhooks');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel(/^webhook\.test/).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('textbox', { name: 'Signing secret of the new endpoint' });
    await secretBox.waitFor();
    firstSecret = await secretBox.inputValue();
    expect(firstSecret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('link', { name: `${receiver.url}: deliveries and details` }).click();
    const name = receiver.url.replace('http://', '');
    await page.getByRole('heading', { level: 1, name: `Webhook: ${name}` }).waitFor();
    endpointPath = new URL(page.url()).pathname;
    expect(endpointPath).toMatch(/^\/webhooks\/whk_/);
    await page.getByText('enabled', { exact: true }).waitFor();
    await page.locator('.empty-state', { hasText: 'No deliveries yet.' }).waitFor();
    await shoot('webhook-endpoint');
    // The page is served at its own address too (a reload, a shared link).
    expect((await page.reload())?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: `Webhook: ${name}` }).waitFor();
    expectFailedResponses([]);
  });

  /** The delivery of `webhookId` in the list, as a locator on its <li>. */
  const deliveryOf = (webhookId: string) => page.locator('li.delivery', { has: page.getByText(webhookId, { exact: true }) });

  const sentIds: string[] = [];

  /** Sends a test event from the page; the webhook-id the notice names (a new one: an earlier notice may still be read first). */
  async function sendTestEvent(): Promise<string> {
    await page.getByRole('button', { name: 'Send test event' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'A test event is on its way' });
    const named = async () => /webhook-id ([^)\s]+)\)/.exec((await notice.textContent({ timeout: 1_000 }).catch(() => '')) ?? '')?.[1] ?? null;
    await expect.poll(async () => { const id = await named(); return id !== null && !sentIds.includes(id); }).toBe(true);
    const id = (await named())!;
    sentIds.push(id);
    return id;
  }

  let failedId = '';

  it('Send test event to a failing receiver: the delivery shows each attempt with the receiver’s answer, then is given up', async () => {
    failedId = await sendTestEvent();
    // The list follows the delivery by itself while it is due: three attempts a second apart, then failed.
    const delivery = deliveryOf(failedId);
    await delivery.locator('summary').filter({ hasText: 'failed' }).waitFor({ timeout: 20_000 });
    expect(await delivery.locator('summary').textContent()).toContain('3 attempts');
    await delivery.locator('summary').click();
    const attempts = delivery.getByRole('list', { name: 'Attempts to deliver webhook.test' }).getByRole('listitem');
    expect(await attempts.count()).toBe(3);
    for (const attempt of await attempts.all()) {
      expect(await attempt.locator('.attempt-line').textContent()).toMatch(/HTTP 500.*\d+ ms/);
      expect(await attempt.locator('pre').textContent()).toBe('receiver down for maintenance');
    }
    expect(await delivery.textContent()).toContain('none: given up');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === failedId)).toHaveLength(3);
    await shoot('webhook-delivery-failed');
  });

  it('the receiver recovers: the next test event is delivered, and the filter shows each kind alone', async () => {
    await receiver.set({ status: 200, body: '{"received":true}' });
    const deliveredId = await sendTestEvent();
    const delivery = deliveryOf(deliveredId);
    await delivery.locator('summary').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    await delivery.locator('summary').click();
    await delivery.locator('.attempt-line').getByText('HTTP 200').waitFor();
    expect(await delivery.locator('pre').textContent()).toBe('{"received":true}');
    expect(receiver.acceptedIds()).toEqual([deliveredId]);
    await shoot('webhook-delivery-delivered');

    const filter = page.getByLabel('Show');
    await filter.selectOption('failed');
    await deliveryOf(failedId).waitFor();
    expect(await page.locator('li.delivery').count()).toBe(1);
    await filter.selectOption('delivered');
    await deliveryOf(deliveredId).waitFor();
    expect(await page.locator('li.delivery').count()).toBe(1);
    await filter.selectOption('pending');
    await page.locator('.empty-state', { hasText: 'No pending deliveries.' }).waitFor();
    await shoot('webhook-deliveries-filtered');
    await filter.selectOption('');
    await expect.poll(() => page.locator('li.delivery').count()).toBe(2);
    expectFailedResponses([]);
  });

  it('disables the endpoint after a confirmation, and enables it again', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable this endpoint?' }).getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByText('No events are delivered to this endpoint.').waitFor();
    await page.getByText('Why: disabled by the account.').waitFor();
    expect(await page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    expect((await user.api.webhooks.get(endpointPath.split('/').pop()!)).enabled).toBe(false);
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText('The endpoint is enabled').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).waitFor();
    expectFailedResponses([]);
  });

  it('a receiver that answers 410 Gone disables the endpoint; the page says why and re-enables it', async () => {
    await receiver.set({ status: 410, body: 'gone' });
    const goneId = await sendTestEvent();
    await receiver.waitFor((r) => r.some((x) => x.headers['webhook-id'] === goneId));
    // The server disabled it: a reload shows the reason and the way back.
    const id = endpointPath.split('/').pop()!;
    await expect.poll(async () => (await user.api.webhooks.get(id)).enabled, { timeout: 10_000 }).toBe(false);
    await page.reload();
    await page.getByText('Its receiver answered 410 Gone').waitFor();
    await page.getByText('disabled: The receiver answered 410 Gone.').waitFor();
    await shoot('webhook-disabled-410');

    await receiver.set({ status: 200 });
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText('The endpoint is enabled').waitFor();
    const againId = await sendTestEvent();
    await deliveryOf(againId).locator('summary').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    // The list's own link back, and the list shows it enabled again.
    await page.getByRole('link', { name: 'All webhook endpoints' }).click();
    await page.locator('tbody tr', { hasText: receiver.url }).getByText('enabled', { exact: true }).waitFor();
    await shoot('webhooks');
    expectFailedResponses([]);
  });

  /** What the receiver got for `webhookId`. */
  const arrivalsOf = (webhookId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === webhookId);

  /** The failed deliveries of the endpoint, by webhook-id, through the API. */
  const failedEventIds = async () => (await user.api.webhooks.deliveries(endpointId(), { status: 'failed', limit: 100 })).data.map((d) => d.event_id);

  it('a delivery failed while the receiver was down is redelivered from the page once it recovers, and arrives once with its webhook-id', async () => {
    await page.goto(endpointPath);
    await page.getByRole('button', { name: 'Send test event' }).waitFor();
    await receiver.set('down');
    const downId = await sendTestEvent();
    const delivery = deliveryOf(downId);
    await delivery.locator('summary').filter({ hasText: 'failed' }).waitFor({ timeout: 20_000 });
    expect(await delivery.locator('summary').textContent()).toContain('3 attempts');
    expect(arrivalsOf(downId)).toHaveLength(0); // nothing was listening

    await receiver.set({ status: 200, body: '{"received":true}' });
    await delivery.locator('summary').click();
    await delivery.getByRole('button', { name: 'Redeliver', exact: true }).click();
    await delivery.getByRole('status').filter({ hasText: 'Queued again with the same webhook-id' }).waitFor();
    // The list follows it (due now) until the receiver's answer is in.
    await delivery.locator('summary').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    expect(await delivery.locator('summary').textContent()).toContain('4 attempts');
    const attempts = delivery.getByRole('list', { name: 'Attempts to deliver webhook.test' }).getByRole('listitem');
    expect(await attempts.count()).toBe(4);
    expect(await attempts.last().locator('.attempt-line').textContent()).toMatch(/^HTTP 200/);
    expect(await attempts.last().locator('pre').textContent()).toBe('{"received":true}');
    // Once, with the original webhook-id: a second later still once.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(arrivalsOf(downId).map((r) => r.answered)).toEqual([200]);
    await shoot('webhook-redelivered');
    expectFailedResponses([]);
  });

  /** `ms` as a datetime-local value (the browser's local time, to the second). */
  const localTime = (ms: number) =>
    page.evaluate((t) => {
      const d = new Date(t);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, ms);

  /** An ISO time as the page writes it (formatDateTime). */
  const asShown = (iso: string) => page.evaluate((t) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(t)), iso);

  it('Redeliver all failed since…: a future time is refused beside the field; a chosen time, then the last 24 hours, queue just the failed ones since', async () => {
    const id = endpointId();
    const older = await failedEventIds(); // the 500 one and the 410 one from before
    expect(older).toHaveLength(2);
    expect(older).toContain(failedId);
    // Two more fail after a boundary, a whole second after the older ones were made.
    const boundary = Math.floor(Date.now() / 1000) * 1000 + 1000;
    await new Promise((r) => setTimeout(r, boundary + 100 - Date.now()));
    await receiver.set('down');
    const fresh = [(await user.api.webhooks.test(id)).event_id, (await user.api.webhooks.test(id)).event_id];
    await expect.poll(failedEventIds, { timeout: 20_000 }).toHaveLength(4);
    await receiver.set({ status: 200, body: '{"received":true}' });

    const bulkButton = page.getByRole('button', { name: 'Redeliver all failed since…' });
    await bulkButton.click();
    const dialog = page.getByRole('dialog', { name: 'Redeliver failed deliveries' });
    await dialog.waitFor();
    expect(await journey.focused()).toBe('field-since-choice');
    const choice = dialog.getByLabel('Failed deliveries created');
    expect(await choice.inputValue()).toBe('86400');
    await choice.selectOption({ label: 'Since a time of your choosing' });
    const since = dialog.getByLabel('Since (your local time)');
    await since.fill(await localTime(Date.now() + 3_600_000));
    await dialog.getByRole('button', { name: 'Redeliver failed deliveries' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await since.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator('#field-since-error').textContent()).toBe('since is later than now.');
    expectFailedResponses([`POST /v1/webhooks/${id}/redeliver 400`]);
    await shoot('webhook-redeliver-failed-refused');

    await since.fill(await localTime(boundary));
    await dialog.getByRole('button', { name: 'Redeliver failed deliveries' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The list's notice (a delivery's own "Queued again…" from before is still open above).
    const notice = page.getByRole('status').filter({ hasText: /failed deliver(y|ies) since/ });
    expect(await notice.textContent()).toBe(`2 failed deliveries since ${await asShown(new Date(boundary).toISOString())} are queued again, each with its original webhook-id.`);
    await receiver.waitFor((r) => fresh.every((f) => r.some((x) => x.headers['webhook-id'] === f && x.answered === 200)), 20_000);
    for (const f of fresh) expect(arrivalsOf(f)).toHaveLength(1);
    await expect.poll(failedEventIds).toEqual(older); // the older ones were left alone
    await Promise.all(fresh.map((f) => deliveryOf(f).locator('summary').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 })));

    // The default, the last 24 hours, takes the older two; then nothing is left.
    const before = await notice.textContent();
    await bulkButton.click();
    await dialog.getByRole('button', { name: 'Redeliver failed deliveries' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => notice.textContent()).not.toBe(before);
    expect(await notice.textContent()).toMatch(/^2 failed deliveries since .+ are queued again, each with its original webhook-id\.$/);
    await receiver.waitFor((r) => older.every((o) => r.some((x) => x.headers['webhook-id'] === o && x.answered === 200)), 20_000);
    await expect.poll(failedEventIds).toEqual([]);
    await Promise.all(older.map((o) => deliveryOf(o).locator('summary').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 })));
    await shoot('webhook-redelivered-failed');
    await bulkButton.click();
    await dialog.getByLabel('Failed deliveries created').selectOption({ label: 'In the last hour' });
    await dialog.getByRole('button', { name: 'Redeliver failed deliveries' }).click();
    await page.getByRole('status').filter({ hasText: /^No failed delivery since .+: nothing was sent again\.$/ }).waitFor();
    expectFailedResponses([]);
  });

  /** The Standard Webhooks headers of a request the receiver got, with `signature` instead of its own if given. */
  const signedHeaders = (r: Received, signature?: string) => ({
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': signature ?? String(r.headers['webhook-signature']),
  });

  /** Sends a test event from the page and waits for the receiver to accept it. */
  async function sendAndReceive(): Promise<Received> {
    const sent = await sendTestEvent();
    await receiver.waitFor((r) => r.some((x) => x.headers['webhook-id'] === sent && x.answered === 200));
    expect(arrivalsOf(sent)).toHaveLength(1);
    return arrivalsOf(sent)[0]!;
  }

  let rotatedSecret = '';

  it('rotates the signing secret with the default overlap: the new secret once, the overlap’s end; a delivery meanwhile verifies with either secret', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    expect(await journey.focused()).toBe('field-overlap');
    expect(await dialog.getByLabel('Keep signing with the old secret too').inputValue()).toBe('86400');
    await shoot('webhook-rotate-secret');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();

    const shown = page.getByRole('textbox', { name: 'New signing secret' });
    await shown.waitFor();
    rotatedSecret = await shown.inputValue();
    expect(rotatedSecret).toMatch(/^whsec_/);
    expect(rotatedSecret).not.toBe(firstSecret);
    const { previous_secret_expires_at: overlapEnd } = await user.api.webhooks.get(endpointId());
    expect(Math.abs(Date.parse(overlapEnd!) - Date.now() - 86_400_000)).toBeLessThan(60_000);
    const end = await asShown(overlapEnd!);
    const opened = page.getByRole('dialog', { name: 'New signing secret' });
    expect(await opened.textContent()).toContain(`Until ${end} every delivery carries two signatures`);
    await shoot('webhook-secret-rotated');
    await opened.getByRole('button', { name: 'I have stored it' }).click();
    await opened.waitFor({ state: 'hidden' });
    // Back on the button that opened it (polled: once, in CI, the check ran before the focus had moved back).
    await expect.poll(() => journey.focused()).toBe('Rotate secret');
    await page.getByText(`Deliveries are signed with the previous secret too until ${end}`).waitFor();
    // Shown once: gone from the page, and not there after a reload either.
    expect(await page.content()).not.toContain(rotatedSecret);
    await page.reload();
    await page.getByText(`Deliveries are signed with the previous secret too until ${end}`).waitFor();
    expect(await page.content()).not.toContain(rotatedSecret);

    const got = await sendAndReceive();
    const signatures = String(got.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(new Webhook(rotatedSecret).verify(got.body, signedHeaders(got))).toMatchObject({ id: got.headers['webhook-id'], type: 'webhook.test' });
    expect(new Webhook(firstSecret).verify(got.body, signedHeaders(got))).toMatchObject({ id: got.headers['webhook-id'], type: 'webhook.test' });
    // The new secret's signature first, the old one's second: each verifies with its own secret only.
    const [byNew, byOld] = signatures as [string, string];
    expect(() => new Webhook(rotatedSecret).verify(got.body, signedHeaders(got, byNew))).not.toThrow();
    expect(() => new Webhook(firstSecret).verify(got.body, signedHeaders(got, byOld))).not.toThrow();
    expect(() => new Webhook(firstSecret).verify(got.body, signedHeaders(got, byNew))).toThrow();
    await shoot('webhook-secret-overlap');
    expectFailedResponses([]);
  });

  it('rotates again without an overlap: the secret before stops at once, and only the newest verifies', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/The secret before the current one, which signs until .+, stops at once/);
    await dialog.getByLabel('Keep signing with the old secret too').selectOption({ label: 'No: only the new secret signs from now on' });
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const opened = page.getByRole('dialog', { name: 'New signing secret' });
    const newest = await opened.getByRole('textbox', { name: 'New signing secret' }).inputValue();
    expect(newest).toMatch(/^whsec_/);
    expect(await opened.textContent()).toContain('The old secret no longer signs: receivers must verify with this one now.');
    await opened.getByRole('button', { name: 'I have stored it' }).click();
    await opened.waitFor({ state: 'hidden' });
    expect(await page.getByText('Deliveries are signed with the previous secret too').count()).toBe(0);
    expect((await user.api.webhooks.get(endpointId())).previous_secret_expires_at).toBeNull();

    const got = await sendAndReceive();
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(newest).verify(got.body, signedHeaders(got))).toMatchObject({ id: got.headers['webhook-id'] });
    expect(() => new Webhook(rotatedSecret).verify(got.body, signedHeaders(got))).toThrow();
    expect(() => new Webhook(firstSecret).verify(got.body, signedHeaders(got))).toThrow();
    expectFailedResponses([]);
  });

  it('Settings → Security log: the account’s events in words, newest first, filtered by type, with Show more', async () => {
    // Out and in again through the page (the browser's own device), enough sign-ins from here for a
    // second page (25 a page), then a failed sign-in from a program, and a key made and revoked.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You have logged out.').waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1 }).filter({ hasNotText: 'Log in' }).waitFor();
    for (let i = 0; i < 25; i++) await user.api.auth.login({ username: user.email, password: user.password });
    const bad = await fetch(`${journey.server.base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: JSON.stringify({ username: user.email, password: 'not-the-password' }),
    });
    expect(bad.status).toBe(401);
    const key = await user.api.apiKeys.create({ name: 'Log reader', scopes: ['agents:read'] });
    await user.api.apiKeys.revoke(key.id);
    const total = (await collectTypes()).length;
    expect(total).toBeGreaterThan(25);

    await page.goto('/settings');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Security log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Security log' }).waitFor();
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    // Newest first, in words, with the details.
    const names = () => rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
    expect((await names()).slice(0, 4)).toEqual(['API key revoked', 'API key created', 'Failed sign-in', 'Signed in']);
    expect(await rows.nth(1).textContent()).toMatch(/Keykey_\w+NameLog readerScopesagents:read$/);
    await shoot('security-log');
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => rows.count()).toBe(total);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    // The oldest: the address confirmed at sign-up, and the browser's sign-in with its device.
    expect(await names()).toContain('Email address confirmed');
    expect(await rows.filter({ hasText: 'Chrome on Linux' }).count()).toBeGreaterThan(0);

    await page.getByLabel('Show').selectOption({ label: 'Failed sign-in' });
    await expect.poll(() => rows.count()).toBe(1);
    const failed = rows.first();
    expect(await failed.getByText('Failed sign-in').getAttribute('class')).toContain('badge-warn');
    expect(await failed.textContent()).toContain('127.0.0.1');
    expect(await failed.textContent()).toContain('curl');
    await shoot('security-log-filtered');
    await page.getByLabel('Show').selectOption({ label: 'Passkey added' });
    await page.locator('.empty-state', { hasText: 'No “Passkey added” events.' }).waitFor();
    expectFailedResponses([]);
  });

  it('Settings → Security log at 1280 and 1440 px wide: addresses, dates and words stay whole, the header one row', async () => {
    // A sign-in from an IPv6 address with a browser's whole user agent (the server trusts X-Forwarded-For here).
    await clientFrom(journey.server.base, { ip: IPV6, userAgent: LONG_USER_AGENT }).auth.login({ username: user.email, password: user.password });
    await page.goto('/settings/security-log');
    await page.getByRole('heading', { level: 1, name: 'Settings: Security log' }).waitFor();
    await page.locator('tbody tr', { hasText: IPV6 }).waitFor();
    await page.locator('tbody tr', { hasText: '127.0.0.1' }).first().waitFor();
    await journey.checkWideLayout('security-log');
    expectFailedResponses([]);
  });

  /** Every event type in the account's security log, through the API. */
  async function collectTypes(): Promise<string[]> {
    const types: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await user.api.me.securityEvents({ limit: 100, ...(cursor ? { cursor } : {}) });
      types.push(...page.data.map((e) => e.type));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return types;
  }

  it('printed nothing to the console, and photographed every page at both sizes', () => {
    expect(journey.consoleErrors).toEqual([]);
    expect(journey.shots.length).toBeGreaterThanOrEqual(14);
  });
});
