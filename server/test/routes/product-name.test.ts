/**
 * PRODUCT_NAME: the service speaks as the product its users know. Every mail names it (a
 * verification, an invitation), the sender's name and the authenticator's label default to it,
 * and the device grant's pages carry it; an unusable name stops the start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createTestApp, type TestApp } from '../harness.js';
import { startInbox } from '../smtp-inbox.js';

describe('PRODUCT_NAME', () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  let t: TestApp;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, PRODUCT_NAME: 'Acme Chat' } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  it('names the product in every mail, as the sender, and to the authenticator', async () => {
    const owner = await t.signUp();
    const verify = await inbox.waitFor(owner.email, /Confirm your email/);
    expect(verify.text).toContain('Confirm this email address for your Acme Chat account.');
    expect(verify.text).not.toContain('Gatehouse');
    expect(verify.html).toContain('your Acme Chat account');
    expect(verify.raw).toMatch(/^From: "?Acme Chat"? <no-reply@localhost>/m);

    const auth = { authorization: `Bearer ${owner.tokens.access_token}` };
    const org = (await t.request({ method: 'POST', url: '/v1/organizations', headers: auth, payload: { name: 'Crew' } })).json() as { id: string };
    const invitee = `invitee.${Date.now()}@example.com`;
    await t.request({ method: 'POST', url: `/v1/organizations/${org.id}/invitations`, headers: auth, payload: { email: invitee, role: 'member' } });
    expect((await inbox.waitFor(invitee, /invited to join/)).text).toContain('to join Crew on Acme Chat as member');

    await t.confirmEmail(owner.id);
    const enrol = await t.request({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: auth, payload: { password: owner.password } });
    expect(enrol.statusCode, enrol.body).toBe(200);
    expect(enrol.json().otpauth_url).toMatch(/^otpauth:\/\/totp\/Acme%20Chat:.*issuer=Acme(%20|\+)Chat/);
  });

  it('titles the device pages with it', async () => {
    const page = await t.request({ method: 'GET', url: '/oauth/device' });
    expect(page.body).toContain('<title>Connect a device · Acme Chat</title>');
    expect(page.body).toContain('<header>Acme Chat</header>');
  });

  it('refuses a name that cannot go into a mail subject or an authenticator label', () => {
    expect(() => loadConfig({ PRODUCT_NAME: 'Acme: Chat' })).toThrow(/PRODUCT_NAME/);
    expect(() => loadConfig({ PRODUCT_NAME: 'x'.repeat(61) })).toThrow(/PRODUCT_NAME/);
  });
});
