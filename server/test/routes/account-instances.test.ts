import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type ServerProcess } from '../server-process.js';
import { startTwoInstances, twoInstancesAvailable, type TwoInstances } from '../two-instances.js';

/**
 * The account operations across two `gatehouse serve` processes sharing PostgreSQL and Redis: what
 * one instance revokes ("sign out everywhere else", deleting the account) the other refuses at
 * once, although it had the credentials cached. Runs when DATABASE_URL and REDIS_URL are set.
 */

describe.runIf(twoInstancesAvailable)('account operations on two instances (PostgreSQL + Redis)', () => {
  let servers: TwoInstances;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    servers = await startTwoInstances('gatehouse_accounts');
    ({ a, b } = servers);
  }, 150_000);

  afterAll(() => servers?.stop());

  const status = (server: ServerProcess, path: string, credential: string) =>
    fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${credential}` } }).then((r) => r.status);
  /** Polls until `server` refuses the credential; resolves with how long that took (ms). */
  async function refusedWithin(server: ServerProcess, path: string, credential: string): Promise<number> {
    const started = Date.now();
    let answer = await status(server, path, credential);
    while (answer === 200 && Date.now() - started < 2_000) answer = await status(server, path, credential);
    expect(answer).toBe(401);
    return Date.now() - started;
  }
  const login = async (server: ServerProcess, email: string, password: string) => {
    const res = await postJson(server.base, '/v1/auth/login', { username: email, password });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  it('"sign out everywhere else" and deleting the account are refused by the other instance at once; a sign-in there restores', async () => {
    const email = `accounts-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Two' })).status).toBe(201);
    const onA = await login(a, email, password);
    const onB = await login(b, email, password);
    const key = ((await (await postJson(a.base, '/v1/api-keys', { name: 'shared' }, onA)).json()) as { key: string }).key;
    // Cached on B: the key's lookup and the session's account.
    expect([await status(b, '/v1/agents', key), await status(b, '/v1/users/me', onB), await status(b, '/v1/users/me', onA)]).toEqual([200, 200, 200]);

    expect((await postJson(a.base, '/v1/auth/logout', { scope: 'others' }, onA)).status).toBe(204);
    expect(await refusedWithin(b, '/v1/users/me', onB)).toBeLessThan(1_000);
    expect(await status(b, '/v1/users/me', onA)).toBe(200);

    const deletion = await fetch(`${a.base}/v1/users/me`, { method: 'DELETE', headers: { authorization: `Bearer ${onA}`, 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
    expect(deletion.status).toBe(202);
    expect(await refusedWithin(b, '/v1/agents', key)).toBeLessThan(1_000);
    expect(await refusedWithin(b, '/v1/users/me', onA)).toBeLessThan(1_000);

    const restored = await login(b, email, password);
    expect(await status(a, '/v1/users/me', restored)).toBe(200);
    expect(await status(a, '/v1/agents', key)).toBe(401);
  });
});
