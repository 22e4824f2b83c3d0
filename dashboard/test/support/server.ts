import { runGatehouse, startServerOnFreshSqlite } from '../../../server/test/server-process.ts';

/** The pages the server mails links to. */
export type MailedPage = 'verify-email' | 'reset-password' | 'accept-invitation';

export interface RunningServer {
  base: string;
  /** The same server as http://localhost:<port>, where its passkeys work. */
  localhostBase: string;
  /** Everything the server printed so far (JSON log lines; mails are logged without SMTP_URL). */
  output(): string;
  /** The token of the newest mailed link to `page` (`verify-email`, `reset-password`, `accept-invitation`), to `to` when given. */
  mailedToken(page: MailedPage, to?: string): string | null;
  /** A `gatehouse` CLI command (e.g. `users grant-admin <email>`) against this server's database. */
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  stop(): Promise<void>;
}

/** The mails the log mailer wrote (server/src/kernel/mail/mailer.ts): `{ mail: { to, subject, text } }` per log line. */
function mailsIn(output: string): { to: string; text: string }[] {
  const mails: { to: string; text: string }[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"mail"')) continue;
    try {
      const { mail } = JSON.parse(line) as { mail?: { to?: unknown; text?: unknown } };
      if (typeof mail?.to === 'string' && typeof mail.text === 'string') mails.push({ to: mail.to, text: mail.text });
    } catch {
      // Not a JSON line (a stack trace, say): not a mail.
    }
  }
  return mails;
}

/** `gatehouse serve` as its own process on a free loopback port, on a fresh SQLite file (the server's own test helper). */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  // Passkeys need a domain as relying party (browsers refuse IP addresses): the journey's passkey
  // steps browse the same server as http://localhost:<port>.
  const server = await startServerOnFreshSqlite((port) => ({
    LOG_LEVEL: 'info', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: `http://localhost:${port}`, ...env,
  }));
  return {
    base: server.base,
    localhostBase: server.base.replace('127.0.0.1', 'localhost'),
    output: server.output,
    mailedToken(page, to) {
      const link = new RegExp(`/${page}\\?token=([A-Za-z0-9_.~%-]+)`, 'g');
      const texts = to === undefined ? [server.output()] : mailsIn(server.output()).filter((m) => m.to === to).map((m) => m.text);
      const matches = texts.flatMap((text) => [...text.matchAll(link)]);
      return matches.length ? decodeURIComponent(matches[matches.length - 1]![1]!) : null;
    },
    cli: (args) => runGatehouse(args, server.env),
    stop: async () => void (await server.stop()),
  };
}
