/**
 * A real `gatehouse serve` for the SDK suites: its own process on a free loopback port, its own
 * SQLite file in a temp directory, torn down with the suite (the server's own test helper).
 */
import { runGatehouse, startServerOnFreshSqlite } from '../../server/test/server-process.js';

export const STRONG_PASSWORD = 'Vivid-Otter-Quarry-42';

export interface LiveServer {
  base: string;
  output(): string;
  /** The token from the last mailed link of this kind to `email`, read from the server's log. */
  mailedToken(email: string, kind: 'reset-password' | 'verify-email' | 'accept-invitation' | 'sign-in'): Promise<string>;
  /** The 6-digit code of the last sign-in mail to `email`, read from the server's log. */
  mailedCode(email: string): Promise<string>;
  /** Runs the gatehouse CLI against the same database (e.g. `users grant-admin`). */
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  stop(): Promise<void>;
}

export async function startLiveServer(extraEnv: Record<string, string> = {}): Promise<LiveServer> {
  const server = await startServerOnFreshSqlite({
    LOG_LEVEL: 'warn',
    // Every suite signs up many users from one IP; the per-IP limit has its own test.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '10000',
    ...extraEnv,
  });
  return {
    base: server.base,
    output: server.output,
    async mailedToken(email, kind) {
      for (let i = 0; i < 100; i++) {
        const lines = server.output().split('\n').filter((line) => line.includes(email) && line.includes(`${kind}?token=`));
        const match = lines.length ? new RegExp(`${kind}\\?token=([A-Za-z0-9_-]+)`).exec(lines.at(-1)!) : null;
        if (match) return match[1]!;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no ${kind} mail to ${email} in the log`);
    },
    async mailedCode(email) {
      for (let i = 0; i < 100; i++) {
        const lines = server.output().split('\n').filter((line) => line.includes(email) && line.includes('sign-in code is '));
        const match = lines.length ? /sign-in code is (\d{6})/.exec(lines.at(-1)!) : null;
        if (match) return match[1]!;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no sign-in code mailed to ${email} in the log`);
    },
    cli: (args) => runGatehouse(args, server.env),
    stop: async () => void (await server.stop()),
  };
}

let counter = 0;
export function uniqueEmail(): string {
  return `sdk${++counter}.${Math.random().toString(36).slice(2, 10)}@example.com`;
}
