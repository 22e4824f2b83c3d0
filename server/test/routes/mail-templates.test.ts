/**
 * MAIL_TEMPLATES_DIR: a folder's files replace any part of any mail (subject, plain text, HTML),
 * with the mail's variables filled in (escaped in HTML, one line in a subject); the parts and
 * mails left out stay built in, their links https first with an app's own scheme beside it; a
 * file that is no mail's part, or a variable the mail has not, stops the start before the
 * database is opened; the guide's example loads as written. Through a real SMTP inbox.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadMailOverrides, mailTemplates, MAIL_VARIABLES } from '../../src/identity/index.js';
import { createTestApp, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

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
    // The API refuses line breaks in names; a subject's own rule is the last line of defence, for
    // a value, a template's file and a built-in subject alike.
    const direct = mailTemplates('Acme', new Map([['verification', { subject: 'Hi {{name}}\nand welcome' }]]));
    expect(direct.verificationMail('a@example.com', 'Ada\r\nBcc: evil@example.com', { href: 'https://x.test/v' }).subject).toBe('Hi Ada Bcc: evil@example.com and welcome');
    expect(direct.invitationMail('a@example.com', 'Bo', 'Crew\r\nBcc: evil@example.com', 'member', { href: 'https://x.test/i' }).subject).toBe('You are invited to join Crew Bcc: evil@example.com');

    // A mail with only its subject replaced keeps its built-in text and HTML.
    await t.request({ method: 'POST', url: '/v1/auth/passwordless/start', payload: { email } });
    const code = await inbox.waitFor(email, /^Code \d{6}$/);
    expect(code.text).toContain('Your Acme Chat sign-in code is');
    expect(code.html).toContain('Sign in to Acme Chat');
    // Its built-in parts both carry the https link first and the app's own scheme beside it.
    const token = encodeURIComponent(tokenFromMail(code, 'sign-in'));
    const [web, app] = [`http://gatehouse.test/sign-in?token=${token}`, `acme://auth/sign-in?token=${token}`];
    expect(code.text).toContain(`${web}\n\nOpen in the app: ${app}`);
    expect(code.html).toContain(`<a href="${web}">Sign in to Acme Chat</a>`);
    expect(code.html.indexOf(`Open in the app: <a href="${app}">`)).toBeGreaterThan(code.html.indexOf(web));
    // A mail not in the folder is all built in.
    await t.request({ method: 'POST', url: '/v1/auth/password/forgot', payload: { email } });
    expect((await inbox.waitFor(email, /Reset your password/)).text).toContain('reset the password of your Acme Chat account');
  });

  it("takes the guide's example as it is written", () => {
    const guide = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'guides', 'mail-templates.md'), 'utf8');
    const files = Object.fromEntries([...guide.matchAll(/^`mail-templates\/([^`]+)`\n\n```\w*\n([\s\S]*?)```/gm)].map(([, name, text]) => [name!, text!]));
    expect(Object.keys(files)).toEqual(['invitation.txt', 'invitation.html']);
    const mail = mailTemplates('Acme', loadMailOverrides(folder(files))).invitationMail('x@example.com', 'Ada <3', 'Crew', 'member', { href: 'https://a.test/accept-invitation?token=t' });
    expect(mail.subject).toBe('You are invited to join Crew');
    expect(mail.text).toContain('Ada <3 would like you in Crew on Acme, as member.');
    expect(mail.html).toContain('<p>Ada &lt;3 would like you in <b>Crew</b> on Acme, as member.</p>');
  });

  it('stops the start on a folder that is wrong, naming the file, before the database is touched', async () => {
    const bad = folder({ 'verification.txt': 'Hi {{ code }}' });
    const database = join(folder({}), 'gatehouse.db');
    await expect(createTestApp({ env: { MAIL_TEMPLATES_DIR: bad, DATABASE_URL: `sqlite:${database}` } })).rejects.toThrow(/^config: MAIL_TEMPLATES_DIR has verification\.txt, which uses \{\{ code \}\}: the verification mail's variables are product, name, link, app_link$/);
    expect(existsSync(database)).toBe(false);
  });

  it('refuses a file that is no mail part, a variable the mail has not, an unreadable file or an empty subject', () => {
    const load = (files: Record<string, string>, prepare: (dir: string) => void = () => {}) => () => {
      const dir = folder(files);
      prepare(dir);
      return loadMailOverrides(dir);
    };
    expect(load({ 'welcome.txt': 'hi' })).toThrow(/^config: MAIL_TEMPLATES_DIR has welcome\.txt, which is no mail's part/);
    expect(load({ 'verification.md': 'hi' })).toThrow(/has verification\.md, which is no mail's part/);
    expect(load({ 'reset-password.txt': 'Hi {{code}}' })).toThrow(/reset-password\.txt, which uses \{\{code\}\}: the reset-password mail's variables are product, name, link, app_link/);
    expect(load({ 'invitation.html': '<p>{{ inviter name }}</p>' })).toThrow(/invitation\.html, which uses \{\{ inviter name \}\}/);
    expect(load({ 'invitation.subject.txt': '  \n' })).toThrow(/invitation\.subject\.txt, which is empty: a mail needs a subject/);
    expect(load({}, (dir) => symlinkSync(join(dir, 'gone'), join(dir, 'verification.txt')))).toThrow(/^config: MAIL_TEMPLATES_DIR has verification\.txt, which cannot be read: ENOENT/);
    expect(load({}, (dir) => mkdirSync(join(dir, 'verification.html')))).toThrow(/has verification\.html, which is not a file/);
    expect(() => loadMailOverrides('/no/such/folder')).toThrow(/^config: MAIL_TEMPLATES_DIR cannot be read/);
    // Hidden files are passed over; an empty folder changes nothing.
    expect(load({ '.gitkeep': '', '.DS_Store': 'x' })()).toEqual(new Map());
    // Every mail's every variable is accepted.
    const all = Object.fromEntries(Object.entries(MAIL_VARIABLES).map(([mail, names]) => [`${mail}.txt`, names.map((n) => `{{${n}}}`).join(' ')]));
    expect(load(all)().size).toBe(Object.keys(MAIL_VARIABLES).length);
    expect(loadConfig({ MAIL_TEMPLATES_DIR: '/x' }).mailTemplatesDir).toBe('/x');
  });
});
