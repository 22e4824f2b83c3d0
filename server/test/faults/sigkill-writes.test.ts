import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../server-process.js';
import { call, inBatches, within } from './http.js';
import { storageViolations } from './invariants.js';
import { postgresStorage, sqliteStorage, type Storage } from './storage.js';
import { startWriteLoad, type WriteLoad } from './write-load.js';

/**
 * A server killed with SIGKILL in the middle of a write load loses nothing it acknowledged and
 * keeps nothing half-written. Eight clients register, log in, create keys and agents as fast as
 * the server answers; the kill lands while requests are in flight; a new process on the same
 * storage must then know every acknowledged account, key and agent, and the database must hold
 * no orphan, no partial transaction and nothing no client asked for.
 */
const CLIENTS = 8;

const storages: Array<{ name: string; open(): Promise<Storage> }> = [
  { name: 'sqlite', open: async () => sqliteStorage() },
  // Always on PostgreSQL too (a fresh database on the shared server), with or without DATABASE_URL.
  { name: 'postgres', open: postgresStorage },
];

describe.each(storages)('SIGKILL during a write load ($name)', ({ open }) => {
  const live: ServerProcess[] = [];
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((s) => s.stop('SIGKILL')));
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('keeps every acknowledged write and no partial one', async () => {
    const storage = await open();
    cleanup.push(storage.drop);
    const env: Record<string, string> = {
      DATABASE_URL: storage.url,
      PUBLIC_URL: 'https://gatehouse.example', // the issuer must stay the same across both lives
      LOG_LEVEL: 'warn',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      // With REDIS_URL set (the CI's second run), PostgreSQL runs as it does in production: with Redis.
      ...(storage.name === 'postgres' && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    };
    const first = await startServer(env);
    live.push(first);

    const load: WriteLoad = startWriteLoad(first.base, CLIENTS);
    cleanup.push(async () => {
      load.stop();
      await load.finished;
    });
    await within(45_000, 'enough acknowledged writes before the kill', async () =>
      load.acked.users.length >= 3 * CLIENTS && load.acked.agents.length >= 2 * CLIENTS);
    await sleep(Math.random() * 200); // land anywhere in a request, not right after an answer
    const inFlight = load.inFlight();
    await first.stop('SIGKILL');
    await load.finished;
    expect(load.unexpected, 'answers before the kill that were neither success nor a dead connection').toEqual([]);
    expect(inFlight, 'the kill must land while writes are in flight').toBeGreaterThan(0);
    const { acked, attempted } = load;

    const second = await startServer(env);
    live.push(second);
    const failures: string[] = [];
    await inBatches(acked.users, 4, async (u) => {
      const res = await call(second.base, 'POST', '/v1/auth/login', { body: { username: u.email, password: u.password } });
      if (res.status !== 200) failures.push(`login ${u.email}: ${res.status ?? res.error}`);
    });
    await inBatches(acked.keys, 8, async (k) => {
      const res = await call(second.base, 'GET', '/v1/usage', { token: k.key });
      if (res.status !== 200) failures.push(`key ${k.id}: ${res.status ?? res.error}`);
    });
    await inBatches(acked.agents, 8, async (a) => {
      const res = await call(second.base, 'GET', `/v1/agents/${a.id}`, { token: a.key });
      if (res.status !== 200 || res.body?.name !== a.name) failures.push(`agent ${a.id}: ${res.status ?? res.error} ${res.body?.name}`);
    });
    expect(failures, 'acknowledged before the kill, missing after the restart').toEqual([]);
    expect(await second.stop('SIGTERM')).toBe(0);

    const db = await storage.inspect();
    cleanup.push(() => db.close());
    expect(await storageViolations(db)).toEqual([]);
    const ackedUsers = new Set(acked.users.map((u) => u.id));
    const users = await db.all<{ id: string; email: string }>('select id, email from users');
    const keys = await db.all<{ id: string; user_id: string; name: string }>('select id, user_id, name from api_keys');
    // An agent belongs to an organization: here its creator's personal one (no match: user_id null, which fails below).
    const agents = await db.all<{ id: string; user_id: string | null; name: string }>('select a.id, u.id as user_id, a.name from agents a left join users u on u.personal_org_id = a.org_id');
    // Nothing nobody asked for.
    expect(users.filter((u) => !attempted.emails.has(u.email))).toEqual([]);
    expect(keys.filter((k) => !attempted.keyNames.has(k.name))).toEqual([]);
    expect(agents.filter((a) => !attempted.agentNames.has(a.name))).toEqual([]);
    // A key or agent is only requested after its account was acknowledged.
    expect(keys.filter((k) => !ackedUsers.has(k.user_id))).toEqual([]);
    expect(agents.filter((a) => a.user_id === null || !ackedUsers.has(a.user_id))).toEqual([]);
    // Unacknowledged rows can only be the requests in flight at the kill: at most one per client.
    expect(users.length - acked.users.length).toBeLessThanOrEqual(CLIENTS);
    expect(keys.length - acked.keys.length).toBeLessThanOrEqual(CLIENTS);
    expect(agents.length - acked.agents.length).toBeLessThanOrEqual(CLIENTS);
    expect(users.length).toBeGreaterThanOrEqual(acked.users.length);
  }, 120_000);
});
