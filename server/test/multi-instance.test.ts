import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, SERVER_DIR, type ServerProcess } from './server-process.js';
import { startTwoInstances, twoInstancesAvailable, type TwoInstances } from './two-instances.js';

/**
 * Two server processes sharing one PostgreSQL database and one Redis behave as one service:
 * the account limit is exact across them, and revocations reach the other instance at once.
 * Needs the real servers, so it runs when DATABASE_URL and REDIS_URL are set (.ci/run's second pass).
 */

describe.runIf(twoInstancesAvailable)('two instances on PostgreSQL + Redis', () => {
  let servers: TwoInstances;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    servers = await startTwoInstances('gatehouse_multi', { USAGE_FLUSH_SECONDS: '1' });
    ({ a, b } = servers);
  }, 60_000);

  afterAll(() => servers?.stop());

  function gatehouse(args: string[]) {
    const cli = spawnSync(process.execPath, ['bin/gatehouse.js', ...args], {
      cwd: SERVER_DIR, env: { PATH: process.env.PATH ?? '', DATABASE_URL: servers.databaseUrl, REDIS_URL: process.env.REDIS_URL! }, encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(0);
  }

  async function account(limits?: { perMinute: number; perDay: number }) {
    const email = `multi-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Multi' })).status).toBe(201);
    if (limits) gatehouse(['users', 'set-tier', email, 'enterprise', '--per-minute', String(limits.perMinute), '--per-day', String(limits.perDay)]);
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

  describe('platform keys', () => {
    const get = (server: ServerProcess, route: string, credential: string) => fetch(`${server.base}${route}`, { headers: { authorization: `Bearer ${credential}` } });
    const createKey = async (token: string, body: Record<string, unknown>) => {
      const res = await postJson(a.base, '/v1/api-keys', body, token);
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };

    it("holds a key's own limit and its uses exactly across both instances", async () => {
      const token = await account();
      const limited = await createKey(token, { name: 'five a minute', rate_limit: { per_minute: 5 } });
      const byRate = await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 ? a : b, '/v1/agents', limited.key)));
      expect(byRate.filter((r) => r.status === 200)).toHaveLength(5);
      expect(byRate.filter((r) => r.status === 429)).toHaveLength(15);
      const counted = await createKey(token, { name: 'three uses', remaining: 3 });
      const byUses = await Promise.all(Array.from({ length: 12 }, (_, i) => get(i % 2 ? a : b, '/v1/agents', counted.key)));
      expect(byUses.filter((r) => r.status === 200)).toHaveLength(3);
      expect(await Promise.all(byUses.filter((r) => r.status === 429).map(async (r) => ((await r.json()) as { code: string }).code))).toEqual(Array(9).fill('usage_exceeded'));
    });

    it('counts in the history exactly the requests sent through both instances, by outcome', async () => {
      const token = await account();
      const key = await createKey(token, { name: 'history', scopes: ['agents:read'], rate_limit: { per_minute: 10 } });
      const expiresAt = Date.now() + 3_000;
      const expiring = await createKey(token, { name: 'expiring', expires_at: new Date(expiresAt).toISOString() });
      // 4 refused for their scope (counted against the key's budget too), then 6 admitted and 14 over the key's limit.
      for (let i = 0; i < 4; i++) expect((await get(i % 2 ? a : b, '/v1/chats', key.key)).status).toBe(403);
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await get(i % 2 ? a : b, '/v1/agents', key.key)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      // An expired key names its owner: unauthorized, counted for it.
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 100)));
      for (let i = 0; i < 3; i++) expect((await get(i % 2 ? a : b, '/v1/agents', expiring.key)).status).toBe(401);

      const totals = async (server: ServerProcess, query: string) => {
        const res = await get(server, `/v1/usage/history?${query}`, token);
        expect(res.status).toBe(200);
        const sums: Record<string, number> = { ok: 0, rate_limited: 0, unauthorized: 0, forbidden: 0 };
        for (const bucket of ((await res.json()) as { data: Record<string, number>[] }).data) for (const outcome of Object.keys(sums)) sums[outcome]! += bucket[outcome]!;
        return sums;
      };
      // The other instance's counts arrive within USAGE_FLUSH_SECONDS (1 here).
      const expected = { ok: 6, rate_limited: 14, unauthorized: 0, forbidden: 4 };
      let seen = await totals(a, `granularity=day&key_id=${key.id}`);
      for (const started = Date.now(); JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() - started < 10_000; ) {
        await new Promise((r) => setTimeout(r, 200));
        seen = await totals(a, `granularity=day&key_id=${key.id}`);
      }
      expect(seen).toEqual(expected);
      // By hour, read through the other instance: the same requests.
      expect(await totals(b, `granularity=hour&key_id=${key.id}`)).toEqual(expected);
      expect(await totals(b, `granularity=hour&key_id=${expiring.id}`)).toEqual({ ok: 0, rate_limited: 0, unauthorized: 3, forbidden: 0 });
    });

    it('a service key on one instance verifies a key rolled through the other, and its old secret stops at once without a grace', async () => {
      const adminEmail = `svc-${randomBytes(4).toString('hex')}@example.com`;
      const password = 'Tidal-Compass-Orchard-9';
      expect((await postJson(a.base, '/v1/auth/register', { email: adminEmail, password, name: 'Admin' })).status).toBe(201);
      gatehouse(['users', 'grant-admin', adminEmail]);
      const adminToken = ((await (await postJson(a.base, '/v1/auth/login', { username: adminEmail, password })).json()) as { access_token: string }).access_token;
      const service = await createKey(adminToken, { name: 'runtime', scopes: ['credentials:verify'] });
      const token = await account();
      const key = await createKey(token, { name: 'rolled' });
      const verifyOnB = async (credential: string) => (await (await postJson(b.base, '/v1/auth/verify', { credential, count: false }, service.key)).json()) as { valid: boolean; code: string };
      expect(await verifyOnB(key.key)).toMatchObject({ valid: true });
      const rolled = await postJson(a.base, `/v1/api-keys/${key.id}/roll`, {}, token);
      expect(rolled.status).toBe(200);
      const fresh = ((await rolled.json()) as { key: string }).key;
      const started = Date.now();
      let answer = await verifyOnB(key.key);
      while (answer.valid && Date.now() - started < 1_000) answer = await verifyOnB(key.key);
      expect(answer).toMatchObject({ valid: false, code: 'revoked' });
      expect(await verifyOnB(fresh)).toMatchObject({ valid: true });
    });
  });
});
