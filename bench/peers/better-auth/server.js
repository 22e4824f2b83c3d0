// The peer: Better Auth (email + password, its API-key plugin) on better-sqlite3, served by
// node:http with its own Node handler, in its own process. Defaults everywhere except what a
// benchmark must set; each exception says why. See bench/README.md, "The peer".
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { apiKey } from '@better-auth/api-key';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

// The same better-sqlite3 build Gatehouse's embedded mode runs on.
const Database = createRequire(fileURLToPath(new URL('../../../server/package.json', import.meta.url)))('better-sqlite3');

const port = Number(process.env.PORT);
const host = process.env.HOST ?? '127.0.0.1';
const baseURL = `http://${host}:${port}`;
const db = new Database(process.env.SQLITE_FILE);
// The same settings as Gatehouse's embedded mode (server/src/kernel/db/database.ts), so both run on
// the same SQLite setup: WAL, no fsync per commit, wait for the lock, foreign keys enforced.
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');

export const auth = betterAuth({
  baseURL,
  // Any fixed secret: without one Better Auth uses a built-in default and warns.
  secret: process.env.BETTER_AUTH_SECRET,
  database: db,
  emailAndPassword: { enabled: true },
  // Its IP rate limiter is off by default outside NODE_ENV=production; say so explicitly.
  rateLimit: { enabled: false },
  plugins: [
    apiKey({
      // The per-key limiter is on by default at 10 requests a day. Gatehouse's bench account is
      // raised to huge limits but still counted on every request; do the same here.
      rateLimit: { enabled: true, maxRequests: 2_147_483_647, timeWindow: 86_400_000 },
    }),
  ],
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const authHandler = toNodeHandler(auth);

/**
 * What a Better Auth user writes to protect an API route with a key, as the plugin's docs show:
 * read `x-api-key` and ask `auth.api.verifyApiKey`. It answers `{ valid, error, key }` either
 * way, so the route turns `valid: false` into a 401 itself. Per call the plugin looks the key up
 * by its SHA-256 and writes its row (request count, last request, updatedAt).
 */
async function protectedByKey(req, res) {
  const key = req.headers['x-api-key'];
  const result = typeof key === 'string' ? await auth.api.verifyApiKey({ body: { key } }) : null;
  const body = result?.valid ? { ok: true, user_id: result.key.referenceId } : { error: result?.error?.code ?? 'missing_key' };
  res.writeHead(result?.valid ? 200 : 401, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
    return;
  }
  if (req.url === '/bench/api-key') {
    protectedByKey(req, res).catch((error) => {
      res.writeHead(500);
      res.end(String(error));
    });
    return;
  }
  void authHandler(req, res);
});
server.listen(port, host);

const stop = () => server.close(() => {
  db.close();
  process.exit(0);
});
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
