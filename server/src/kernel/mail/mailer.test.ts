import { describe, expect, it } from 'vitest';
import { createMailer } from './mailer.js';

const message = { to: 'ada@example.com', subject: 'Reset your password', text: 'http://x.test/reset-password?token=gthp_abc', html: '' };

describe('createMailer', () => {
  it('never writes mail to the log in production, whatever wired it', () => {
    const logged: unknown[] = [];
    expect(() => createMailer({ mailFrom: 'a@b.test', production: true }, (entry) => logged.push(entry))).toThrow(/SMTP_URL/);
    expect(logged).toEqual([]);
  });

  it('writes mail to the log outside production, so a developer can follow the link', async () => {
    const logged: unknown[] = [];
    await createMailer({ mailFrom: 'a@b.test', production: false }, (entry) => logged.push(entry)).send(message);
    expect(logged).toEqual([{ to: message.to, subject: message.subject, text: message.text }]);
  });

  it('sends nothing to a reserved .invalid address (an account that gave up an unproven one)', async () => {
    const logged: unknown[] = [];
    await createMailer({ mailFrom: 'a@b.test', production: false }, (entry) => logged.push(entry)).send({ ...message, to: 'usr_1@unclaimed.invalid' });
    expect(logged).toEqual([]);
  });
});
