import { startServerOnFreshSqlite } from '../../../server/test/server-process.ts';

export interface RunningServer {
  base: string;
  /** The same server as http://localhost:<port>, where its passkeys work. */
  localhostBase: string;
  /** Everything the server printed so far (JSON log lines; mails are logged without SMTP_URL). */
  output(): string;
  /** The token of the newest mailed link to `page` (`verify-email`, `reset-password`, `accept-invitation`). */
  mailedToken(page: 'verify-email' | 'reset-password' | 'accept-invitation'): string | null;
  stop(): Promise<void>;
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
    mailedToken(page) {
      const matches = [...server.output().matchAll(new RegExp(`/${page}\\?token=([A-Za-z0-9_.~%-]+)`, 'g'))];
      return matches.length ? decodeURIComponent(matches[matches.length - 1]![1]!) : null;
    },
    stop: async () => void (await server.stop()),
  };
}
