import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CACHE_TTL_MS } from '../src/identity/users/account-cache.js';
import { postJson, runGatehouse, startServer, startServerOnFreshSqlite, type ServerProcess } from './server-process.js';
import { openSse, type SseConnection } from './sse-client.js';
import { scratchPostgres } from './webhooks/process-helpers.js';

/**
 * `npx gatehouse users disable|enable` and `keys revoke` beside a running `gatehouse serve`
 * process on the same database. With REDIS_URL (CI's second pass, on PostgreSQL) the command tells
 * the server through Redis, as the admin API tells every instance: the server refuses at once and
 * ends the streams it holds. Without Redis (the first pass, on SQLite) nothing can reach the
 * server: it refuses a disabled account once its cached copy expires, as the command's note says.
 */
const redisUrl = process.env.REDIS_URL;
const postgresUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
const PASSWORD = 'Tidal-Compass-Orchard-9';

describe(`CLI beside a running server (${postgresUrl ? 'postgres' : 'sqlite'}${redisUrl ? ' + redis' : ', no redis'})`, () => {
  let server: ServerProcess;
  let database: Awaited<ReturnType<typeof scratchPostgres>> | undefined;
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) };
    if (postgresUrl) {
      database = await scratchPostgres(postgresUrl, 'gatehouse_cli');
      server = await startServer({ ...env, DATABASE_URL: database.url });
    } else {
      server = await startServerOnFreshSqlite(env);
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await server?.stop();
    await database?.drop();
  });

  /** The operator's shell: the server's database and Redis, nothing of the test runner's. */
  const cli = (args: string[]) => runGatehouse(args, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: server.env.DATABASE_URL!, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  const status = (path: string, token: string) => fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { code?: string }).code }));
  const login = async (email: string) => {
    const res = await postJson(server.base, '/v1/auth/login', { username: email, password: PASSWORD });
    return { status: res.status, body: (await res.json()) as { access_token?: string; code?: string } };
  };
  /** Polls every 50 ms until `probe` returns what `ok` wants; fails after `withinMs`. Returns how long it took. */
  async function within(withinMs: number, probe: () => Promise<unknown>, ok: (value: any) => boolean): Promise<number> {
    const start = Date.now();
    for (;;) {
      const value = await probe();
      if (ok(value)) return Date.now() - start;
      if (Date.now() - start > withinMs) throw new Error(`not within ${withinMs} ms: ${JSON.stringify(value)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function account() {
    const email = `cli-${randomBytes(4).toString('hex')}@example.com`;
    expect((await postJson(server.base, '/v1/auth/register', { email, password: PASSWORD, name: 'Operated' })).status).toBe(201);
    const token = (await login(email)).body.access_token!;
    const created = async (name: string) => (await (await postJson(server.base, '/v1/api-keys', { name }, token)).json()) as { id: string; key: string };
    const [key, spare] = [await created('runtime'), await created('spare')];
    // Both credentials are now in the server's caches, which the command must reach.
    expect((await status('/v1/agents', key.key)).status).toBe(200);
    expect((await status('/v1/users/me', token)).status).toBe(200);
    return { email, token, key, spare };
  }
  async function stream(token: string) {
    const connection = await openSse(`${server.base}/v1/events/stream`, { authorization: `Bearer ${token}` });
    expect(connection.status).toBe(200);
    streams.push(connection);
    return connection;
  }
  const closedReason = async (s: SseConnection, withinMs: number) => (await s.next((e) => e.event === 'stream.closed', withinMs)).data.reason;

  it.runIf(redisUrl)('users disable: the server refuses the token, the keys and the login at once and ends the streams; enable lets it back in', async () => {
    const { email, token, key } = await account();
    const [byKey, byToken] = [await stream(key.key), await stream(token)];

    const disabled = await cli(['users', 'disable', email]);
    expect(disabled.code, disabled.output).toBe(0);
    expect(disabled.output).toContain(`${email} (usr_`);
    expect(disabled.output).not.toContain('REDIS_URL is not set');
    // Pub/sub delivery is asynchronous: "at once" is the next few milliseconds, bounded here at one second.
    await within(1_000, () => status('/v1/agents', key.key), (r) => r.status === 403 && r.code === 'account_disabled');
    await within(1_000, () => status('/v1/users/me', token), (r) => r.status === 401 || r.code === 'account_disabled');
    expect(await closedReason(byKey, 2_000)).toBe('account_disabled');
    expect(['account_disabled', 'credential_revoked']).toContain(await closedReason(byToken, 2_000));
    expect((await login(email)).body.code).toBe('account_disabled');

    const enabled = await cli(['users', 'enable', email]);
    expect(enabled.code, enabled.output).toBe(0);
    await within(1_000, () => status('/v1/agents', key.key), (r) => r.status === 200);
    const back = await login(email);
    expect(back.status).toBe(200);
    expect((await status('/v1/users/me', back.body.access_token!)).status).toBe(200);
    // The sessions revoked by the disable stay revoked.
    expect((await status('/v1/users/me', token)).status).toBe(401);
  }, 60_000);

  it.runIf(redisUrl)('keys revoke: the server refuses that key at once and ends its stream; the account and its other keys go on', async () => {
    const { token, key, spare } = await account();
    const byKey = await stream(key.key);
    const revoked = await cli(['keys', 'revoke', key.id]);
    expect(revoked.code, revoked.output).toBe(0);
    expect(revoked.output).toContain(`revoked API key ${key.id} "runtime"`);
    await within(1_000, () => status('/v1/agents', key.key), (r) => r.status === 401);
    expect(await closedReason(byKey, 2_000)).toBe('credential_revoked');
    expect((await status('/v1/agents', spare.key)).status).toBe(200);
    expect((await status('/v1/users/me', token)).status).toBe(200);
    const listed = (await (await fetch(`${server.base}/v1/api-keys`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { id: string }[] };
    expect(listed.data.map((k) => k.id)).toEqual([spare.id]);
  }, 60_000);

  it.skipIf(redisUrl)('without Redis, the command says it cannot reach the server, which refuses the account once its cached copy expires', async () => {
    const { email, key } = await account();
    const disabled = await cli(['users', 'disable', email]);
    expect(disabled.code, disabled.output).toBe(0);
    expect(disabled.output).toContain('note: REDIS_URL is not set, so running instances were not told');
    await within(ACCOUNT_CACHE_TTL_MS + 2_000, () => status('/v1/agents', key.key), (r) => r.code === 'account_disabled');
    expect((await login(email)).body.code).toBe('account_disabled');
  }, 60_000);
});
