import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { createDependencies, type Dependencies } from '../src/dependencies.js';
import { ManualClock } from '../src/kernel/clock.js';
import { createLogger } from '../src/kernel/logger.js';
import type { OrganizationsTable } from '../src/kernel/db/schema.js';

/**
 * A fresh app on a fresh database for each test file (or test): in-memory SQLite by default,
 * its own PostgreSQL schema when DATABASE_URL is set, so the same suites run on both.
 */
export interface TestApp {
  app: FastifyInstance;
  deps: Dependencies;
  config: Config;
  clock: ManualClock;
  /** Every log line the app wrote, raw JSON text. */
  logs: string[];
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  register(input?: Partial<{ email: string; password: string; name: string }>): Promise<{ email: string; password: string; id: string }>;
  login(email: string, password: string, headers?: Record<string, string>): Promise<TokenPair>;
  /** Marks the account's address confirmed, as following its mailed link does (adding a way in needs it). */
  confirmEmail(userId: string): Promise<void>;
  /** The user's personal organization: what their resources belong to (`org_id`) and where their tier and limits are. */
  personalOrgId(userId: string): Promise<string>;
  /** Sets the tier or custom limits of the user's personal organization, as the admin API does, and drops its cached row. */
  setPlan(userId: string, plan: Partial<Pick<OrganizationsTable, 'tier' | 'limit_per_minute' | 'limit_per_day' | 'limit_streams'>>): Promise<void>;
  /** Register and log in a fresh user. */
  signUp(input?: Partial<{ email: string; password: string; name: string }>): Promise<{ email: string; password: string; id: string; tokens: TokenPair }>;
  close(): Promise<void>;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

export const dialect = (process.env.DATABASE_URL ? 'postgres' : 'sqlite') + (process.env.REDIS_URL ? ' + redis' : '');
/** With Redis the account limiter runs on the Redis server's clock, so waits must be real. */
export const limiterUsesRealTime = Boolean(process.env.REDIS_URL);
export const STRONG_PASSWORD = 'Vivid-Otter-Quarry-42';
let counter = 0;

export function uniqueEmail(): string {
  return `user${++counter}.${randomBytes(4).toString('hex')}@example.com`;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Leaves no schema behind when a suite fails before its own cleanup could run. */
async function dropSchema(schema: string): Promise<void> {
  const { openDatabase } = await import('../src/kernel/db/database.js');
  const handle = await openDatabase({ url: process.env.DATABASE_URL! });
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db).finally(() => handle.close());
}

export async function createTestApp(options: { env?: Record<string, string>; clock?: ManualClock } = {}): Promise<TestApp> {
  const clock = options.clock ?? new ManualClock(Date.now());
  const schema = process.env.DATABASE_URL ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const config = loadConfig({
    DATABASE_URL: process.env.DATABASE_URL ?? 'sqlite::memory:',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    PUBLIC_URL: 'http://gatehouse.test',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '10000',
    ...options.env,
  });
  const logs: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logs.push(line) });
  // Each app gets its own Redis key space, so limits and attempt counters never leak between suites.
  const redisKeyPrefix = `test:${randomBytes(6).toString('hex')}:`;
  const deps = await createDependencies(config, { clock, databaseSchema: schema, redisKeyPrefix, logger }).catch(async (error: unknown) => {
    if (schema) await dropSchema(schema);
    throw error;
  });
  const app = await buildApp(deps, { loggerInstance: logger });
  await app.ready();

  const request = (opts: InjectOptions) => app.inject(opts);

  async function register(input: Partial<{ email: string; password: string; name: string }> = {}) {
    const body = { email: input.email ?? uniqueEmail(), password: input.password ?? STRONG_PASSWORD, name: input.name ?? 'Test User' };
    const res = await request({ method: 'POST', url: '/v1/auth/register', payload: body });
    if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
    return { email: body.email, password: body.password, id: res.json().id as string };
  }

  async function login(email: string, password: string, headers: Record<string, string> = {}): Promise<TokenPair> {
    const res = await request({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password }, headers });
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  async function personalOrgId(userId: string): Promise<string> {
    const row = await deps.database.db.selectFrom('users').select('personal_org_id').where('id', '=', userId).executeTakeFirstOrThrow();
    return row.personal_org_id;
  }

  return {
    app, deps, config, clock, logs, request, register, login, personalOrgId,
    async confirmEmail(userId) {
      await deps.database.db.updateTable('users').set({ email_verified: 1 }).where('id', '=', userId).execute();
      await deps.accounts.changed(userId);
    },
    async setPlan(userId, plan) {
      const orgId = await personalOrgId(userId);
      await deps.database.db.updateTable('organizations').set(plan).where('id', '=', orgId).execute();
      await deps.organizationCache.changed(orgId);
    },
    async signUp(input) {
      const user = await register(input);
      return { ...user, tokens: await login(user.email, user.password) };
    },
    async close() {
      await app.close();
      // Background work (a delivery worker on real timers) stops with the dependencies: dropping
      // the schema while it still ran a transaction deadlocked (PostgreSQL 40P01) now and then.
      await deps.close();
      if (schema) await dropSchema(schema);
    },
  };
}
