import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dialect, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

const APPLE_APP_IDS = 'ABCDE12345.com.example.chat, FGHIJ67890.com.example.chat.beta';
const FINGERPRINT = '14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5';

describe(`app links: well-known files and mailed links (${dialect})`, () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
  });
  afterAll(() => inbox.close());

  describe('with the apps configured and a custom scheme', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        env: {
          SMTP_URL: inbox.url, APP_LINK_URL: 'myapp://auth/', APPLE_APP_IDS,
          ANDROID_APP_PACKAGE: 'com.example.chat', ANDROID_CERT_SHA256: FINGERPRINT.replace(/:/g, '').toLowerCase(),
        },
      });
    });
    afterAll(() => t.close());

    it('serves apple-app-site-association in the shape Apple documents, as JSON, without a redirect', async () => {
      const res = await t.request({ method: 'GET', url: '/.well-known/apple-app-site-association' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({
        applinks: {
          details: [{
            appIDs: ['ABCDE12345.com.example.chat', 'FGHIJ67890.com.example.chat.beta'],
            components: [{ '/': '/verify-email', comment: 'a mailed Gatehouse link' }, { '/': '/reset-password', comment: 'a mailed Gatehouse link' }, { '/': '/accept-invitation', comment: 'a mailed Gatehouse link' }, { '/': '/sign-in', comment: 'a mailed Gatehouse link' }],
          }],
        },
        webcredentials: { apps: ['ABCDE12345.com.example.chat', 'FGHIJ67890.com.example.chat.beta'] },
      });
    });

    it('serves assetlinks.json in the shape Google documents, fingerprints upper-case with colons', async () => {
      const res = await t.request({ method: 'GET', url: '/.well-known/assetlinks.json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual([{
        relation: ['delegate_permission/common.handle_all_urls'],
        target: { namespace: 'android_app', package_name: 'com.example.chat', sha256_cert_fingerprints: [FINGERPRINT] },
      }]);
    });

    it('mails verification and reset links as the web page first (every mail client opens it), the app link beside it', async () => {
      const user = await t.signUp();
      const verify = await inbox.waitFor(user.email, /Confirm your email/);
      const token = tokenFromMail(verify, 'verify-email');
      const web = `http://gatehouse.test/verify-email?token=${encodeURIComponent(token)}`;
      const app = `myapp://auth/verify-email?token=${encodeURIComponent(token)}`;
      expect(verify.text).toContain(`${web}\n\nOpen in the app: ${app}`);
      expect(verify.html.indexOf(`href="${web}"`)).toBeGreaterThan(-1);
      expect(verify.html.indexOf(`href="${app}"`)).toBeGreaterThan(verify.html.indexOf(`href="${web}"`));
      await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email: user.email } });
      const reset = await inbox.waitFor(user.email, /Reset your password/);
      expect(reset.text).toMatch(/^http:\/\/gatehouse\.test\/reset-password\?token=gthp_/m);
      expect(reset.text).toMatch(/^Open in the app: myapp:\/\/auth\/reset-password\?token=gthp_/m);
    });

    it('mails invitations the same way: the web page, and the app link beside it', async () => {
      const owner = await t.signUp();
      const org = (await t.request({ method: 'POST', url: '/v1/organizations', headers: { authorization: `Bearer ${owner.tokens.access_token}` }, payload: { name: 'Acme' } })).json() as { id: string };
      const invitee = `invitee.${Date.now()}@example.com`;
      const invited = await t.request({ method: 'POST', url: `/v1/organizations/${org.id}/invitations`, headers: { authorization: `Bearer ${owner.tokens.access_token}` }, payload: { email: invitee, role: 'member' } });
      expect(invited.statusCode).toBe(201);
      const mail = await inbox.waitFor(invitee, /invited to join/);
      const token = tokenFromMail(mail, 'accept-invitation');
      expect(mail.text).toContain(`http://gatehouse.test/accept-invitation?token=${encodeURIComponent(token)}\n\nOpen in the app: myapp://auth/accept-invitation?token=${encodeURIComponent(token)}`);
      // The app names the organization and who invites before anyone signs in.
      const preview = await t.request({ method: 'GET', url: `/v1/invitations/preview?token=${encodeURIComponent(token)}` });
      expect(preview.json()).toEqual({ organization_name: 'Acme', inviter_name: expect.any(String), role: 'member', expires_at: expect.any(String) });
    });
  });

  describe('with an https universal-link base', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { SMTP_URL: inbox.url, APP_LINK_URL: 'https://gatehouse.test/app', APPLE_APP_IDS: 'ABCDE12345.com.example.chat' } });
    });
    afterAll(() => t.close());

    it('links there (one link: the universal link opens the app or the page) and lists those paths for the app', async () => {
      const user = await t.signUp();
      const mail = await inbox.waitFor(user.email, /Confirm your email/);
      expect(mail.text).toMatch(/^https:\/\/gatehouse\.test\/app\/verify-email\?token=gthv_/m);
      expect(mail.text).not.toContain('Open in the app');
      const aasa = (await t.request({ method: 'GET', url: '/.well-known/apple-app-site-association' })).json();
      expect(aasa.applinks.details[0].components.map((c: { '/': string }) => c['/'])).toEqual(['/app/verify-email', '/app/reset-password', '/app/accept-invitation', '/app/sign-in']);
    });
  });

  describe('without them', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { SMTP_URL: inbox.url } });
    });
    afterAll(() => t.close());

    it('answers 404 problems for both files, and mails links to the dashboard pages', async () => {
      for (const url of ['/.well-known/apple-app-site-association', '/.well-known/assetlinks.json']) {
        const res = await t.request({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const user = await t.signUp();
      const mail = await inbox.waitFor(user.email, /Confirm your email/);
      expect(mail.text).toMatch(/^http:\/\/gatehouse\.test\/verify-email\?token=gthv_/m);
    });
  });
});
