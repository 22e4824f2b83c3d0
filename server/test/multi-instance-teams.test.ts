import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type ServerProcess } from './server-process.js';
import { startTwoInstances, twoInstancesAvailable, type TwoInstances } from './two-instances.js';

/**
 * Teams across two server processes sharing PostgreSQL and Redis: a member removed through one
 * instance is refused by the other within a second (their token in the organization and the keys
 * they created there), and every member's requests draw from the organization's one budget.
 * Joining is done in the database here; invitations are tested in routes/organizations.test.ts.
 */

describe.runIf(twoInstancesAvailable)('teams on two instances (PostgreSQL + Redis)', () => {
  let servers: TwoInstances;
  let db: pg.Client;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    servers = await startTwoInstances('gatehouse_teams');
    ({ a, b } = servers);
    db = new pg.Client({ connectionString: servers.databaseUrl });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await servers?.stop();
  });

  async function user(): Promise<{ id: string; token: string }> {
    const email = `team-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    const registered = (await (await postJson(a.base, '/v1/auth/register', { email, password, name: 'Team' })).json()) as { id: string };
    const login = (await (await postJson(b.base, '/v1/auth/login', { username: email, password })).json()) as { access_token: string };
    return { id: registered.id, token: login.access_token };
  }

  /** An organization of `owner`'s with `member` in it as a member. */
  async function team(owner: { token: string }, member: { id: string }): Promise<string> {
    const org = (await (await postJson(a.base, '/v1/organizations', { name: 'Team' }, owner.token)).json()) as { id: string };
    await db.query(`insert into memberships (org_id, user_id, role, created_at) values ($1, $2, 'member', $3)`, [org.id, member.id, new Date().toISOString()]);
    await db.query('update users set organization_count = organization_count + 1 where id = $1', [member.id]);
    return org.id;
  }

  const call = (server: ServerProcess, path: string, credential: string, orgId?: string) =>
    fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${credential}`, ...(orgId ? { 'gatehouse-organization': orgId } : {}) } });

  it("refuses a removed member's token and keys on the other instance within one second", async () => {
    const owner = await user();
    const member = await user();
    const orgId = await team(owner, member);
    const created = await fetch(`${a.base}/v1/api-keys`, {
      method: 'POST', body: JSON.stringify({ name: 'runtime' }),
      headers: { authorization: `Bearer ${member.token}`, 'gatehouse-organization': orgId, 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { key: string }).key;
    // Both admitted on B, and so cached there.
    expect((await call(b, '/v1/agents', member.token, orgId)).status).toBe(200);
    expect((await call(b, '/v1/agents', key)).status).toBe(200);

    const removed = await fetch(`${a.base}/v1/organizations/${orgId}/members/${member.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } });
    expect(removed.status).toBe(204);
    const removedAt = Date.now();
    let tokenStatus = 0;
    let keyStatus = 0;
    while (Date.now() - removedAt < 1_000) {
      const [tokenAnswer, keyAnswer] = await Promise.all([call(b, '/v1/agents', member.token, orgId), call(b, '/v1/agents', key)]);
      tokenStatus = tokenAnswer.status;
      keyStatus = keyAnswer.status;
      if (tokenStatus === 403 && keyStatus === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect({ tokenStatus, keyStatus, withinMs: Date.now() - removedAt <= 1_000 }).toEqual({ tokenStatus: 403, keyStatus: 401, withinMs: true });
    const refusal = (await (await call(b, '/v1/agents', member.token, orgId)).json()) as { code: string };
    expect(refusal.code).toBe('not_a_member');
    // Their own account is untouched: the personal organization still answers.
    expect((await call(b, '/v1/agents', member.token)).status).toBe(200);
  });

  it("draws every member's requests from the organization's one budget: past 100 in a minute, 429 whoever sends it", async () => {
    const owner = await user();
    const member = await user();
    const orgId = await team(owner, member);
    // 130 requests, the two members and the two instances taking turns, all at once. The minute
    // budget is a leaky bucket (100 a minute, draining 5 every 3 s), so what the burst's own
    // duration gave back is allowed on top of the 100; two budgets would admit all 130.
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 130 }, (_, i) =>
      call(i % 2 ? a : b, '/v1/agents', (i % 4 < 2 ? owner : member).token, orgId).then((r) => ({ status: r.status, byOwner: i % 4 < 2 }))));
    const drained = Math.ceil(((Date.now() - started) * 100) / 60_000);
    const admitted = results.filter((r) => r.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(100 + drained);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 429)).toBe(true);
    // Then ten more each, at once: the few slots the bucket drained meanwhile cannot admit them
    // all, so each member is refused: one pool, whoever sends.
    const more = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b, '/v1/agents', (i < 10 ? owner : member).token, orgId).then((r) => r.status)));
    expect(more.slice(0, 10)).toContain(429);
    expect(more.slice(10)).toContain(429);
    // Each member's personal organization has its own budget, untouched.
    expect((await call(a, '/v1/agents', member.token)).status).toBe(200);
  });
});
