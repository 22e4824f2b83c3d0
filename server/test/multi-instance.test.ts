import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, SERVER_DIR, startServer, type ServerProcess } from './server-process.js';

/**
 * Two server processes sharing one PostgreSQL database and one Redis behave as one service:
 * the account limit is exact across them, and revocations reach the other instance at once.
 * Needs the real servers, so it runs when DATABASE_URL and REDIS_URL are set (.ci/run's second pass).
 */
const enabled = Boolean(process.env.DATABASE_URL?.startsWith('postgres') && process.env.REDIS_URL);

describe.runIf(enabled)('two instances on PostgreSQL + Redis', () => {
  const dbName = `gatehouse_multi_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let databaseUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
    // Behind one load balancer, every instance has the same public URL (the tokens' issuer).
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: process.env.REDIS_URL!, PUBLIC_URL: 'https://gatehouse.example', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000', LOG_LEVEL: 'warn' };
    a = await startServer(env);
    b = await startServer(env);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  async function account(limits?: { perMinute: number; perDay: number }) {
    const email = `multi-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Multi' })).status).toBe(201);
    if (limits) {
      const cli = spawnSync(process.execPath, ['bin/gatehouse.js', 'users', 'set-tier', email, 'enterprise', '--per-minute', String(limits.perMinute), '--per-day', String(limits.perDay)], {
        cwd: SERVER_DIR, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, REDIS_URL: process.env.REDIS_URL! }, encoding: 'utf8',
      });
      expect(cli.status, cli.stderr).toBe(0);
    }
    const login = await postJson(b.base, '/v1/auth/login', { username: email, password });
    return ((await login.json()) as { access_token: string }).access_token;
  }

  // Two platform routes that spend from the budget, and an account route that spends none.
  const BUDGETED = ['/v1/agents', '/v1/chats'];
  const ROUTES = ['/v1/agents', '/v1/usage'];

  it.each(BUDGETED)('admits exactly 100 of 400 concurrent requests spread over both instances (%s)', async (route) => {
    // A limit of 100 in both windows: the day window does not refill, so the total is exact
    // however long the burst takes.
    const token = await account({ perMinute: 100, perDay: 100 });
    const responses = await Promise.all(
      Array.from({ length: 400 }, (_, i) => fetch(`${(i % 2 ? a : b).base}${route}`, { headers: { authorization: `Bearer ${token}` } })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(300);
    const fromEach = [0, 1].map((parity) => statuses.filter((s, i) => s === 200 && i % 2 === parity).length);
    expect(fromEach[0]! + fromEach[1]!).toBe(100);
  });

  it.each(ROUTES)('a key revoked through one instance is refused by the other within one second (%s)', async (route) => {
    const token = await account();
    const created = (await (await postJson(a.base, '/v1/api-keys', { name: 'shared' }, token)).json()) as { id: string; key: string };
    const viaB = () => fetch(`${b.base}${route}`, { headers: { authorization: `Bearer ${created.key}` } }).then((r) => r.status);
    expect(await viaB()).toBe(200); // now cached on B
    const revoked = await fetch(`${a.base}/v1/api-keys/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(204);
    const started = Date.now();
    let status = await viaB();
    while (status === 200 && Date.now() - started < 1_000) status = await viaB();
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it.each(ROUTES)('a logout on one instance makes the token fail on the other within one second (%s)', async (route) => {
    const token = await account();
    const viaA = () => fetch(`${a.base}${route}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await viaA()).toBe(200);
    expect((await postJson(b.base, '/v1/auth/logout', {}, token)).status).toBe(204);
    const started = Date.now();
    let status = await viaA();
    while (status === 200 && Date.now() - started < 1_000) status = await viaA();
    expect(status).toBe(401);
  });
});
