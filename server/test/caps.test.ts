import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from './harness.js';
import { postJson, runGatehouse, startServer, type ServerProcess } from './server-process.js';
import { scratchPostgres } from './webhooks/process-helpers.js';

/**
 * Caps hold under concurrency: 200 creates at once against a cap of 100 leave exactly 100, and the
 * rest get 422 limit_reached. In one process on either database (concurrent transactions), and
 * across two `gatehouse serve` processes on one PostgreSQL database. A delete gives its place back.
 */
const CAP = 100;
const ATTEMPTS = 200;
const CAPS_ENV = { AGENTS_PER_ORGANIZATION: String(CAP), WEBHOOKS_PER_ORGANIZATION: String(CAP), API_KEYS_PER_ORGANIZATION: String(CAP) };
const CREATES = {
  agents: (i: number) => ({ path: '/v1/agents', body: { name: `Agent ${i}`, model: 'm' } }),
  'api-keys': (i: number) => ({ path: '/v1/api-keys', body: { name: `Key ${i}`, scopes: ['agents:read'] } }),
  webhooks: (i: number) => ({ path: '/v1/webhooks', body: { url: `http://127.0.0.1:9/hooks/${i}`, events: ['agent.created'] } }),
} as const;
type Collection = keyof typeof CREATES;

function expectExactlyCap(statuses: number[], codes: string[]) {
  const tally = JSON.stringify(Object.fromEntries([...new Set(codes)].map((c) => [c, codes.filter((x) => x === c).length])));
  expect(statuses.filter((s) => s === 201), tally).toHaveLength(CAP);
  expect(statuses.filter((s) => s === 422), tally).toHaveLength(ATTEMPTS - CAP);
  expect(new Set(codes)).toEqual(new Set(['limit_reached']));
}

describe(`caps under concurrent creates, one process (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ...CAPS_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it.each(Object.keys(CREATES) as Collection[])('%s: 200 at once against a cap of 100 leave exactly 100; a delete makes room for one', async (collection) => {
    const user = await t.signUp();
    await t.setPlan(user.id, { tier: 'enterprise', limit_per_minute: 100_000, limit_per_day: 1_000_000 });
    t.clock.advance(6_000); // past the account cache
    const auth = bearer(user.tokens.access_token);
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => t.request({ method: 'POST', url: CREATES[collection](i).path, headers: auth, payload: CREATES[collection](i).body })));
    expectExactlyCap(answers.map((a) => a.statusCode), answers.filter((a) => a.statusCode !== 201).map((a) => a.json().code));
    const created = answers.find((a) => a.statusCode === 201)!.json().id as string;
    expect((await t.request({ method: 'DELETE', url: `${CREATES[collection](0).path}/${created}`, headers: auth })).statusCode).toBe(204);
    expect((await t.request({ method: 'POST', url: CREATES[collection](ATTEMPTS).path, headers: auth, payload: CREATES[collection](ATTEMPTS).body })).statusCode).toBe(201);
    expect((await t.request({ method: 'POST', url: CREATES[collection](ATTEMPTS + 1).path, headers: auth, payload: CREATES[collection](ATTEMPTS + 1).body })).statusCode).toBe(422);
  });

  it('an agent deleted while chats are created for it: no answer is a 5xx, and the chat counter matches what is left', async () => {
    const user = await t.signUp();
    await t.setPlan(user.id, { tier: 'enterprise', limit_per_minute: 100_000, limit_per_day: 1_000_000 });
    const orgId = await t.personalOrgId(user.id);
    t.clock.advance(6_000);
    const auth = bearer(user.tokens.access_token);
    for (let round = 0; round < 5; round++) {
      const agent = (await t.request({ method: 'POST', url: '/v1/agents', headers: auth, payload: { name: `Doomed ${round}`, model: 'm' } })).json().id as string;
      const creates = Array.from({ length: 30 }, (_, i) => t.request({ method: 'POST', url: '/v1/chats', headers: auth, payload: { agent_id: agent, title: `Chat ${i}` } }));
      const deleted = t.request({ method: 'DELETE', url: `/v1/agents/${agent}`, headers: auth });
      const answers = await Promise.all([...creates, deleted]);
      expect(answers.map((a) => a.statusCode).filter((s) => s >= 500), JSON.stringify(answers.filter((a) => a.statusCode >= 500).map((a) => a.json()))).toEqual([]);
      expect((await deleted).statusCode).toBe(204);
      const chats = await t.deps.database.db.selectFrom('chats').select('id').where('org_id', '=', orgId).execute();
      const counted = await t.deps.database.db.selectFrom('organizations').select('chat_count').where('id', '=', orgId).executeTakeFirstOrThrow();
      expect(Number(counted.chat_count)).toBe(chats.length);
    }
  });
});

const enabled = Boolean(process.env.DATABASE_URL?.startsWith('postgres') && process.env.REDIS_URL);

describe.runIf(enabled)('caps under concurrent creates, two instances on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let a: ServerProcess;
  let b: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await scratchPostgres(process.env.DATABASE_URL, 'gatehouse_caps');
    // One PUBLIC_URL for both: it is the tokens' issuer, so each instance accepts the other's.
    env = { ...CAPS_ENV, PUBLIC_URL: 'https://gatehouse.example', DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_RATE_LIMIT_PER_MINUTE: '100000', ACCOUNT_RATE_LIMIT_PER_MINUTE: '100000' };
    a = await startServer(env);
    b = await startServer(env);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  /** A new account with room in its request budget for the burst (the CLI tells both instances). */
  async function enterpriseAccount(): Promise<string> {
    const email = `caps-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Granite-Meadow-Lantern-4';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Caps' })).status).toBe(201);
    const set = await runGatehouse(['users', 'set-tier', email, 'enterprise', '--per-minute', '100000', '--per-day', '1000000'], { ...env, PATH: process.env.PATH ?? '' });
    expect(set.code, set.output).toBe(0);
    const login = await postJson(b.base, '/v1/auth/login', { username: email, password });
    return ((await login.json()) as { access_token: string }).access_token;
  }

  it.each(Object.keys(CREATES) as Collection[])('%s: 200 at once, half on each instance, against a cap of 100 leave exactly 100', async (collection) => {
    const token = await enterpriseAccount();
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, async (_, i) => {
        const res = await postJson(i % 2 ? a.base : b.base, CREATES[collection](i).path, CREATES[collection](i).body, token);
        return { status: res.status, body: (await res.json()) as { code?: string } };
      }),
    );
    expectExactlyCap(answers.map((x) => x.status), answers.filter((x) => x.status !== 201).map((x) => x.body.code ?? ''));
    const listed = await fetch(`${a.base}${CREATES[collection](0).path}?limit=100`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ data: unknown[]; next_cursor: string | null }>);
    expect(listed.data).toHaveLength(CAP);
    expect(listed.next_cursor).toBeNull();
  }, 60_000);
});
