import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/kernel/ids.js';
import { KEY_SCOPES, USER_SCOPES } from '../src/kernel/access-terms/scopes.js';
import { openDatabase } from '../src/kernel/db/database.js';
import { MIGRATIONS } from '../src/kernel/db/migrations/index.js';
import { generateApiKey } from '../src/access/api-keys/api-key-format.js';
import { createPasswordHasher } from '../src/identity/passwords/password-hasher.js';
import { newOpaqueToken, sha256Hex } from '../src/kernel/opaque-tokens.js';
import { dialect, STRONG_PASSWORD } from './harness.js';
import { postJson, startServer, type ServerProcess } from './server-process.js';

/**
 * Upgrading from the release before organizations (schema 0013) loses no way in: a database
 * written the way that release wrote it (an argon2id password hash, API keys stored as SHA-256 of
 * the secret) is served by `gatehouse serve`, which migrates it on start, and every old API key,
 * the old password, and what they see are as before; a key revoked before stays refused.
 * A SQLite file in a temporary directory; with DATABASE_URL, a PostgreSQL schema of its own,
 * handed to the server in the connection string (`?options=-c search_path=…`).
 */
const postgresUrl = process.env.DATABASE_URL;

describe(`upgrade from the release before organizations: every old key still works (${dialect})`, () => {
  const schema = postgresUrl ? `upgrade_${randomBytes(6).toString('hex')}` : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-upgrade-'));
  let databaseUrl: string;
  let server: ServerProcess | undefined;

  const email = 'ada@example.com';
  const secrets = { plain: generateApiKey(), budgeted: generateApiKey(), rolled: generateApiKey(), rolledAway: generateApiKey(), revoked: generateApiKey() };
  const userId = newId('user');
  const agentId = newId('agent');
  const chatId = newId('chat');
  const messageIds = [newId('message'), newId('message')];
  /** A signed-in browser's refresh token, from a login before the upgrade (sessions.service.ts: `gthr_` + 256 bits). */
  const refreshToken = newOpaqueToken('gthr_');

  const open = () => (schema ? openDatabase({ url: postgresUrl!, schema }) : openDatabase({ url: databaseUrl }));

  beforeAll(async () => {
    if (postgresUrl && schema) {
      const url = new URL(postgresUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      databaseUrl = url.toString();
    } else {
      databaseUrl = `sqlite:${join(dir, 'gatehouse.db')}`;
    }

    // The release's database: its schema, and rows as its code wrote them.
    const handle = await open();
    try {
      const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableSchema: schema });
      const { error } = await migrator.migrateTo('0013-platform-keys');
      expect(error).toBeUndefined();
      const db = handle.db as unknown as Kysely<any>;
      const now = Date.now();
      const iso = (offsetMs = 0) => new Date(now + offsetMs).toISOString();
      const passwordHash = await (await createPasswordHasher()).hash(STRONG_PASSWORD);
      await db.insertInto('users').values({
        id: userId, email, email_normalized: email, name: 'Ada', password_hash: passwordHash, tier: 'enterprise', role: 'user', email_verified: 1, disabled: 0,
        limit_per_minute: 5000, limit_per_day: 2_000_000, limit_streams: 400, created_at: iso(-86_400_000), updated_at: iso(-86_400_000),
        agent_count: 1, chat_count: 1, api_key_count: 3, webhook_count: 0,
      }).execute();
      const allScopes = KEY_SCOPES.filter((s) => (USER_SCOPES as readonly string[]).includes(s)).join(' ');
      const key = (name: string, secret: string, extra: Record<string, unknown> = {}) => ({
        id: newId('apiKey'), user_id: userId, name, secret_hash: sha256Hex(secret), prefix: secret.slice(0, 8), last_four: secret.slice(-4), scopes: allScopes,
        created_at: iso(-3_600_000), expires_at: null, last_used_at: null, revoked_at: null,
        rate_limit_per_minute: null, rate_limit_per_day: null, remaining: null, refill_amount: null, refill_interval: null, refilled_at: null,
        previous_secret_hash: null, previous_expires_at: null, ...extra,
      });
      await db.insertInto('api_keys').values([
        key('plain', secrets.plain),
        key('budgeted', secrets.budgeted, { rate_limit_per_minute: 60, rate_limit_per_day: 1000, remaining: 50 }),
        // Rolled an hour before the upgrade with a day's grace: both secrets work.
        key('rolled', secrets.rolled, { previous_secret_hash: sha256Hex(secrets.rolledAway), previous_expires_at: iso(86_400_000) }),
        key('revoked', secrets.revoked, { revoked_at: iso(-1_800_000) }),
      ]).execute();
      await db.insertInto('agents').values({ id: agentId, user_id: userId, name: 'Support', description: 'Answers tickets', instructions: 'Be kind.', model: 'gpt-4o-mini', metadata: '{"team":"cx"}', created_at: iso(-3_000_000), updated_at: iso(-3_000_000) }).execute();
      await db.insertInto('chats').values({ id: chatId, user_id: userId, agent_id: agentId, title: 'Order 1234', created_at: iso(-2_000_000), updated_at: iso(-1_000_000), message_count: 2 }).execute();
      await db.insertInto('messages').values([
        { id: messageIds[0], chat_id: chatId, user_id: userId, role: 'user', content: 'Where is my order?', created_at: iso(-2_000_000), status: 'completed', delta_sequence: 0 },
        { id: messageIds[1], chat_id: chatId, user_id: userId, role: 'assistant', content: 'It ships tomorrow.', created_at: iso(-1_000_000), status: 'completed', delta_sequence: 0 },
      ]).execute();
      const sessionId = newId('session');
      await db.insertInto('sessions').values({
        id: sessionId, user_id: userId, created_at: iso(-600_000), last_used_at: iso(-600_000), expires_at: iso(14 * 86_400_000), revoked_at: null, revoked_reason: null,
        ip: '203.0.113.9', user_agent: 'Mozilla/5.0', amr: 'pwd', factor_verified_at: null,
      }).execute();
      await db.insertInto('refresh_tokens').values({ token_hash: sha256Hex(refreshToken), session_id: sessionId, created_at: iso(-600_000), rotated_at: null }).execute();
    } finally {
      await handle.close();
    }

    server = await startServer({ DATABASE_URL: databaseUrl });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (schema) {
      const handle = await openDatabase({ url: postgresUrl! });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db).finally(() => handle.close());
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string, token: string) => {
    const res = await fetch(`${server!.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };

  /** What the owner of the data should see with any working credential. */
  async function seesTheirData(token: string, label: string): Promise<void> {
    const agents = await get('/v1/agents', token);
    expect(agents.status, `${label}: GET /v1/agents ${JSON.stringify(agents.body)}`).toBe(200);
    expect(agents.body.data.map((a: any) => [a.id, a.name])).toEqual([[agentId, 'Support']]);
    const agent = await get(`/v1/agents/${agentId}`, token);
    expect(agent.status, `${label}: GET /v1/agents/:id`).toBe(200);
    expect(agent.body).toMatchObject({ id: agentId, name: 'Support', instructions: 'Be kind.', model: 'gpt-4o-mini' });
    const chat = await get(`/v1/chats/${chatId}`, token);
    expect(chat.status, `${label}: GET /v1/chats/:id ${JSON.stringify(chat.body)}`).toBe(200);
    expect(chat.body).toMatchObject({ id: chatId, agent_id: agentId, title: 'Order 1234' });
    const messages = await get(`/v1/chats/${chatId}/messages`, token);
    expect(messages.status, `${label}: GET /v1/chats/:id/messages ${JSON.stringify(messages.body)}`).toBe(200);
    expect(messages.body.data.map((m: any) => [m.id, m.role, m.content]).sort()).toEqual([
      [messageIds[0], 'user', 'Where is my order?'],
      [messageIds[1], 'assistant', 'It ships tomorrow.'],
    ].sort());
  }

  it('serves the migrated database: every old API key sees its agent and chat', { timeout: 60_000 }, async () => {
    await seesTheirData(secrets.plain, 'old key');
    await seesTheirData(secrets.budgeted, 'old key with its own budget');
    await seesTheirData(secrets.rolled, 'rolled key (new secret)');
    await seesTheirData(secrets.rolledAway, 'rolled key (previous secret, in its grace period)');
  });

  it('keeps the account tier and its enterprise limits', async () => {
    const usage = await get('/v1/usage', secrets.plain);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body).toMatchObject({ tier: 'enterprise', limits: { per_minute: 5000, per_day: 2_000_000 } });
  });

  it('logs the user in with the old password: the session sees the same, and lists the old keys', { timeout: 60_000 }, async () => {
    const res = await postJson(server!.base, '/v1/auth/login', { username: email, password: STRONG_PASSWORD });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    await seesTheirData(body.access_token, 'access token');
    // The keys as the session lists them (keys are managed with a session). The budgeted key had
    // 50 uses before the upgrade and spent 4 in the first test: what is left continues from there.
    const keys = await get('/v1/api-keys', body.access_token);
    expect(keys.status, JSON.stringify(keys.body)).toBe(200);
    const budgeted = keys.body.data.find((k: any) => k.name === 'budgeted');
    expect(budgeted).toMatchObject({ prefix: secrets.budgeted.slice(0, 8), last_four: secrets.budgeted.slice(-4), remaining: 46 });
    expect(keys.body.data.map((k: any) => k.name).sort()).toEqual(['budgeted', 'plain', 'rolled']); // a revoked key is not listed
    expect(keys.body.data.find((k: any) => k.name === 'rolled')).toMatchObject({ prefix: secrets.rolled.slice(0, 8), previous_key_expires_at: expect.any(String) });
    const wrong = await postJson(server!.base, '/v1/auth/login', { username: email, password: `${STRONG_PASSWORD}x` });
    expect(wrong.status).toBe(401);
  });

  it('keeps a browser signed in: a refresh token from before the upgrade rotates, and its access token sees the same', async () => {
    const res = await postJson(server!.base, '/v1/auth/refresh', { refresh_token: refreshToken });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.refresh_token).not.toBe(refreshToken);
    await seesTheirData(body.access_token, 'access token from the old session');
  });

  it('still refuses a key revoked before the upgrade, and an unknown one', async () => {
    for (const token of [secrets.revoked, generateApiKey()]) {
      const res = await get('/v1/agents', token);
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    }
  });

  it('writes after the upgrade: the old key creates an agent and a chat under the carried-over counters', { timeout: 30_000 }, async () => {
    const created = await postJson(server!.base, '/v1/agents', { name: 'Second', instructions: 'Hi.', model: 'gpt-4o-mini' }, secrets.plain);
    const agent = (await created.json()) as any;
    expect(created.status, JSON.stringify(agent)).toBe(201);
    const chat = await postJson(server!.base, '/v1/chats', { agent_id: agent.id }, secrets.plain);
    expect(chat.status, await chat.clone().text()).toBe(201);
    const agents = await get('/v1/agents', secrets.plain);
    expect(agents.body.data.map((a: any) => a.id).sort()).toEqual([agentId, agent.id].sort());
  });
});
