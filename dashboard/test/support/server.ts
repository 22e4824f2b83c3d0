import { startServerOnFreshSqlite } from '../../../server/test/server-process.ts';

export interface RunningServer {
  base: string;
  /** Everything the server printed so far (JSON log lines; mails are logged without SMTP_URL). */
  output(): string;
  /** The token of the newest mailed link to `page` (`verify-email`, `reset-password`). */
  mailedToken(page: 'verify-email' | 'reset-password'): string | null;
  stop(): Promise<void>;
}

/** `gatehouse serve` as its own process on a free loopback port, on a fresh SQLite file (the server's own test helper). */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServerOnFreshSqlite({ LOG_LEVEL: 'info', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', ...env });
  return {
    base: server.base,
    output: server.output,
    mailedToken(page) {
      const matches = [...server.output().matchAll(new RegExp(`/${page}\\?token=([A-Za-z0-9_.~%-]+)`, 'g'))];
      return matches.length ? decodeURIComponent(matches[matches.length - 1]![1]!) : null;
    },
    stop: async () => void (await server.stop()),
  };
}
