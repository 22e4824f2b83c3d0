import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

/**
 * A real SMTP server on loopback that keeps what it receives, for tests to read. With `auth`, it
 * accepts exactly that user and password (AUTH PLAIN/LOGIN over the plain connection).
 */
export async function startInbox(options: { auth?: { user: string; pass: string } } = {}): Promise<{ url: string; mails: ReceivedMail[]; waitFor(to: string, subject: RegExp, count?: number): Promise<ReceivedMail>; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const { auth } = options;
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth: true,
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass) return callback(null, { user: auth.user });
      callback(new Error('Invalid username or password'));
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address).join(','),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            raw,
          });
          callback();
        }, callback);
      });
    },
  });
  // A client that drops its connection (a server process stopped while it was sending a notice)
  // makes SMTPServer emit 'error'; unheard, that would be an uncaught exception in the test run.
  // What a test checks is the mail that arrived, so the drop is not its failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, subject, count = 1) {
      for (let i = 0; i < 200; i++) {
        const found = mails.filter((m) => m.to === to && subject.test(m.subject));
        if (found.length >= count) return found[count - 1]!;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no mail "${subject}" to ${to}; got: ${mails.map((m) => `${m.to}: ${m.subject}`).join('; ')}`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function tokenFromMail(mail: ReceivedMail, page: string): string {
  const match = new RegExp(`/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in mail: ${mail.text}`);
  return decodeURIComponent(match[1]!);
}
