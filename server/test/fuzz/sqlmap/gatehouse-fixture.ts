import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/kernel/db/database.js';
import { postJson, SERVER_DIR, startServer, type ServerProcess } from '../../server-process.js';

const run = promisify(execFile);

/** What the targets need: credentials and one record of each kind to point ids and cursors at. */
export interface Seed {
  email: string;
  password: string;
  userId: string;
  /** An admin's access token (enterprise tier, limits far above anything sqlmap sends). */
  token: string;
  /** An API key with every scope. */
  apiKey: string;
  apiKeyId: string;
  sessionId: string;
  agentId: string;
  chatId: string;
  messageId: string;
  webhookId: string;
}

export interface Gatehouse {
  server: ServerProcess;
  seed: Seed;
  dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

async function json<T>(res: Response | Promise<Response>, status: number): Promise<T> {
  const answer = await res;
  if (answer.status !== status) throw new Error(`${answer.url}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

/**
 * A real `gatehouse serve` on a fresh database: a SQLite file, or its own PostgreSQL schema when
 * DATABASE_URL is set (handed to the process in the connection string, as cli.test.ts does).
 * Public, login and account-route limits are raised so sqlmap's thousands of requests are answered, not throttled.
 */
export async function startGatehouse(): Promise<Gatehouse> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-sqlmap-'));
  const postgresUrl = process.env.DATABASE_URL;
  const schema = postgresUrl ? `sqlmap_${randomBytes(6).toString('hex')}` : undefined;
  let databaseUrl = `sqlite:${join(dir, 'gatehouse.db')}`;
  if (postgresUrl && schema) {
    const url = new URL(postgresUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
    await (await openDatabase({ url: postgresUrl, schema })).close(); // creates the empty schema
  }
  const cleanup = async () => {
    if (postgresUrl && schema) {
      const handle = await openDatabase({ url: postgresUrl });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db).finally(() => handle.close());
    }
    rmSync(dir, { recursive: true, force: true });
  };
  let server: ServerProcess | undefined;
  try {
    server = await startServer({
      DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000', LOGIN_MAX_FAILURES: '1000000', ACCOUNT_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    const seed = await seedAccount(server.base, databaseUrl);
    const started = server;
    return { server, seed, dialect: schema ? 'postgres' : 'sqlite', close: async () => { await started.stop(); await cleanup(); } };
  } catch (error) {
    await server?.stop();
    await cleanup();
    throw error;
  }
}

async function seedAccount(base: string, databaseUrl: string): Promise<Seed> {
  const email = `sqlmap.${randomBytes(4).toString('hex')}@example.com`;
  const password = 'Vivid-Otter-Quarry-42';
  const user = await json<{ id: string }>(postJson(base, '/v1/auth/register', { email, password, name: 'Sqlmap' }), 201);
  // Through the operator's CLI, before the first login, so no instance holds the old account in cache.
  const cli = (...args: string[]) => run(process.execPath, ['bin/gatehouse.js', ...args], { cwd: SERVER_DIR, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl } });
  await cli('users', 'set-tier', email, 'enterprise', '--per-minute', '1000000000', '--per-day', '2147483647');
  await cli('users', 'grant-admin', email);
  const tokens = await json<{ access_token: string }>(postJson(base, '/v1/auth/login', { username: email, password }), 200);
  const token = tokens.access_token;
  const get = <T>(path: string) => json<T>(fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }), 200);

  const usage = await get<{ tier: string; limits: { per_minute: number } }>('/v1/usage');
  if (usage.tier !== 'enterprise' || usage.limits.per_minute !== 1_000_000_000) throw new Error(`tier not raised: ${JSON.stringify(usage)}`);
  const key = await json<{ id: string; key: string }>(postJson(base, '/v1/api-keys', { name: 'sqlmap' }, token), 201);
  const sessions = await get<{ data: { id: string }[] }>('/v1/sessions');
  const agent = await json<{ id: string }>(postJson(base, '/v1/agents', { name: 'Support bot', model: 'gpt-4o' }, token), 201);
  const chat = await json<{ id: string }>(postJson(base, '/v1/chats', { agent_id: agent.id }, token), 201);
  const message = await json<{ id: string }>(postJson(base, `/v1/chats/${chat.id}/messages`, { role: 'user', content: 'Hello' }, token), 201);
  // Subscribed to test events only, so the agents sqlmap creates send nothing anywhere.
  const webhook = await json<{ id: string }>(postJson(base, '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['webhook.test'] }, token), 201);
  await json(postJson(base, `/v1/webhooks/${webhook.id}/test`, {}, token), 202);
  return {
    email, password, userId: user.id, token, apiKey: key.key, apiKeyId: key.id, sessionId: sessions.data[0]!.id,
    agentId: agent.id, chatId: chat.id, messageId: message.id, webhookId: webhook.id,
  };
}
