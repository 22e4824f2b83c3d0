/**
 * MAIL_TEMPLATES_DIR: a folder's files replace any part of any mail (subject, plain text, HTML),
 * with the mail's variables filled in (escaped in HTML, one line in a subject); the parts and
 * mails left out stay built in; a file that is no mail's part, or a variable the mail has not,
 * stops the start. Through a real SMTP inbox.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadMailOverrides, mailTemplates, MAIL_VARIABLES } from '../../src/identity/index.js';
import { createTestApp, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox } from '../smtp-inbox.js';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-mail-templates-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('MAIL_TEMPLATES_DIR', () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  let t: TestApp;
  beforeAll(async () => {
    inbox = await startInbox();
    const dir = folder({
      'verification.subject.txt': 'Welcome to {{product}}, {{ name }}\n',
      'verification.txt': 'Hi {{name}}! Confirm: {{link}}\nApp: {{app_link}}\n',
      'verification.html': '<p>Hi {{name}}</p><a href="{{link}}">Confirm</a>',
      'sign-in-code.subject.txt': 'Code {{code}}',
    });
    t = await createTestApp({ env: { SMTP_URL: inbox.url, PRODUCT_NAME: 'Acme Chat', MAIL_TEMPLATES_DIR: dir, APP_LINK_URL: 'acme://auth' } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  it('replaces the parts given, fills the variables (escaped in HTML, one line in the subject), and keeps the rest', async () => {
    const email = uniqueEmail();
    expect((await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email, password: 'Vivid-Otter-Quarry-42', name: 'Ada <b>&' } })).statusCode).toBe(201);
    const mail = await inbox.waitFor(email, /Welcome to Acme Chat/);
    expect(mail.subject).toBe('Welcome to Acme Chat, Ada <b>&');
    expect(mail.text).toMatch(/^Hi Ada <b>&! Confirm: http:\/\/gatehouse\.test\/verify-email\?token=gthv_\S+\nApp: acme:\/\/auth\/verify-email\?token=gthv_/);
    expect(mail.html).toContain('<p>Hi Ada &lt;b&gt;&amp;</p><a href="http://gatehouse.test/verify-email?token=gthv_');
    // The API refuses line breaks in names; the subject's own rule is the last line of defence.
    const direct = mailTemplates('Acme', new Map([['verification', { subject: 'Hi {{name}}' }]])).verificationMail('a@example.com', 'Ada\r\nBcc: evil@example.com', { href: 'https://x.test/v' });
    expect(direct.subject).toBe('Hi Ada Bcc: evil@example.com');

    // A mail with only its subject replaced keeps its built-in text and HTML.
    await t.request({ method: 'POST', url: '/v1/auth/passwordless/start', payload: { email } });
    const code = await inbox.waitFor(email, /^Code \d{6}$/);
    expect(code.text).toContain('Your Acme Chat sign-in code is');
    expect(code.html).toContain('Sign in to Acme Chat');
    // A mail not in the folder is all built in.
    await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email } });
    expect((await inbox.waitFor(email, /Reset your password/)).text).toContain('reset the password of your Acme Chat account');
  });

  it('stops the start on a file that is no mail part, a variable the mail has not, or an empty subject', () => {
    const load = (files: Record<string, string>) => () => loadMailOverrides(folder(files));
    expect(load({ 'welcome.txt': 'hi' })).toThrow(/^config: MAIL_TEMPLATES_DIR has welcome\.txt, which is no mail's part/);
    expect(load({ 'verification.md': 'hi' })).toThrow(/verification\.md/);
    expect(load({ 'reset-password.txt': 'Hi {{code}}' })).toThrow(/reset-password\.txt, which uses \{\{code\}\}: the reset-password mail's variables are product, name, link, app_link/);
    expect(load({ 'invitation.subject.txt': '  ' })).toThrow(/needs a subject/);
    expect(() => loadMailOverrides('/no/such/folder')).toThrow(/^config: MAIL_TEMPLATES_DIR cannot be read/);
    expect(load({})()).toEqual(new Map());
    // Every mail's every variable is accepted.
    const all = Object.fromEntries(Object.entries(MAIL_VARIABLES).map(([mail, names]) => [`${mail}.txt`, names.map((n) => `{{${n}}}`).join(' ')]));
    expect(load(all)().size).toBe(Object.keys(MAIL_VARIABLES).length);
    expect(loadConfig({ MAIL_TEMPLATES_DIR: '/x' }).mailTemplatesDir).toBe('/x');
  });
});
