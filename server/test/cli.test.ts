import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDependencies } from '../src/dependencies.js';
import { ManualClock } from '../src/kernel/clock.js';
import { openDatabase } from '../src/kernel/db/database.js';
import { MIGRATIONS } from '../src/kernel/db/migrations/index.js';
import { newId } from '../src/kernel/ids.js';
import { ACCOUNT_CACHE_TTL_MS } from '../src/identity/users/account-cache.js';
import { TIERS } from '../src/kernel/access-terms/tiers.js';
import * as OTPAuth from 'otpauth';
import { bearer, dialect, STRONG_PASSWORD, uniqueEmail } from './harness.js';
import { ensureServerBuilt } from './server-process.js';

/**
 * `npx gatehouse <command>`, run as a user runs it: a child process on the database,
 * with an app instance on the same database to see the effect through the HTTP API. A fresh
 * SQLite file by default; with DATABASE_URL=postgres://… a fresh schema, handed to the CLI in
 * the connection string (`?options=-c search_path=…`), as an operator could.
 */

const SERVER_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT_DIR = resolve(SERVER_DIR, '..');
const COMMANDS = [
  ['serve'], ['migrate'], ['users', 'list'], ['users', 'set-tier'], ['users', 'grant-admin'], ['users', 'reset-mfa'], ['users', 'release-provider-addresses'], ['users', 'disable'], ['users', 'enable'], ['keys', 'revoke'], ['keys', 'rotate'],
];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A user's shell: no npm-run PATH additions, no test-runner variables (DATABASE_URL, NODE_ENV...). */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => p && !p.includes('node_modules')).join(delimiter);
  return { PATH: path, HOME: process.env.HOME ?? tmpdir(), TMPDIR: tmpdir(), ...extra };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function decodeJwtHeader(token: string): { kid: string } {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
}

/** An app instance on the CLI's database, as `npm start` would run it (with a clock the test moves). */
async function openApp(databaseUrl: string, schema: string | undefined) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, PUBLIC_URL: 'http://gatehouse.test', PUBLIC_RATE_LIMIT_PER_MINUTE: '10000' });
  const clock = new ManualClock(Date.now());
  const deps = await createDependencies(config, { clock, databaseSchema: schema });
  const app: FastifyInstance = await buildApp(deps);
  await app.ready();
  return {
    app,
    clock,
    deps,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

describe(`npx gatehouse (CLI, ${dialect})`, () => {
  const postgresUrl = process.env.DATABASE_URL;
  const schema = postgresUrl ? `cli_${randomBytes(6).toString('hex')}` : undefined;
  let dir: string;
  let dbFile: string;
  let databaseUrl: string;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, ['bin/gatehouse.js', ...args], SERVER_DIR, userEnv({ DATABASE_URL: databaseUrl, ...env }));

  /** Reads the database directly, as an operator would check it. */
  async function query<T>(build: ReturnType<typeof sql<T>>): Promise<T[]> {
    const handle = await openDatabase({ url: databaseUrl, schema });
    try {
      return (await build.execute(handle.db)).rows;
    } finally {
      await handle.close();
    }
  }
  /** Nothing has been created in the database (file or schema) yet. */
  async function untouched(): Promise<boolean> {
    if (!schema) return !existsSync(dbFile);
    const tables = await query<{ n: number | string }>(sql`select count(*) as n from information_schema.tables where table_schema = ${schema}`);
    return Number(tables[0]?.n) === 0;
  }

  beforeAll(async () => {
    await ensureServerBuilt(); // the bin runs the compiled server
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
    dbFile = join(dir, 'db.sqlite');
    if (postgresUrl && schema) {
      const url = new URL(postgresUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      databaseUrl = url.toString();
      await (await openDatabase({ url: postgresUrl, schema })).close(); // creates the (empty) schema
    } else {
      databaseUrl = `sqlite:${dbFile}`;
    }
  });
  afterAll(async () => {
    if (postgresUrl && schema) {
      const handle = await openDatabase({ url: postgresUrl });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
      await handle.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints usage for --help and no command, and for every command, without touching the database', async () => {
    const [help, bare, ...perCommand] = await Promise.all([
      cli(['--help']),
      cli([]),
      ...COMMANDS.map((command) => cli([...command, '--help'])),
    ]);
    for (const r of [help!, bare!]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: npx gatehouse <command>/);
      for (const command of COMMANDS) expect(r.stdout).toContain(command.join(' '));
      expect(r.stderr).toBe('');
    }
    perCommand.forEach((r, i) => {
      const command = COMMANDS[i]!.join(' ');
      expect(r.code, `${command} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`^Usage: npx gatehouse ${command}`));
      expect(r.stderr, command).toBe('');
    });
    const setTierHelp = perCommand[3]!.stdout;
    expect(setTierHelp).toContain('--per-minute');
    expect(setTierHelp).toContain('enterprise tier only');
    for (const tier of TIERS) expect(setTierHelp).toContain(tier);
    for (const option of ['--tier', '--email', '--limit', '--json']) expect(perCommand[2]!.stdout).toContain(option);
    // `keys rotate --help` and friends only print: no database was opened, let alone changed.
    expect(await untouched()).toBe(true);
  }, 120_000);

  it('exits 2 with a message for an unknown command, subcommand or option', async () => {
    const [unknown, sub, option, missing, misplaced] = await Promise.all([
      cli(['frobnicate']),
      cli(['users', 'promote', 'a@example.com']),
      cli(['migrate', '--force']),
      cli(['users', 'set-tier']),
      cli(['migrate', '--tier', 'pro']),
    ]);
    expect(misplaced!.code).toBe(2);
    expect(misplaced!.stderr).toContain('"migrate" takes no --tier option');
    expect(unknown!.code).toBe(2);
    expect(unknown!.stderr).toContain('unknown command "frobnicate"');
    expect(unknown!.stderr).toContain('Usage: npx gatehouse');
    expect(unknown!.stdout).toBe('');
    expect(sub!.code).toBe(2);
    expect(sub!.stderr).toContain('unknown command "users promote a@example.com"');
    expect(option!.code).toBe(2);
    expect(option!.stderr).toContain("'--force'");
    expect(missing!.code).toBe(2);
    expect(missing!.stderr).toContain('Usage: npx gatehouse users set-tier <email|org_id> <tier>');
  }, 120_000);

  it('exits 2 with one line naming the variable on a bad configuration', async () => {
    const results = await Promise.all([
      cli(['migrate'], { PORT: 'abc' }),
      cli(['serve'], { PORT: 'abc' }),
      cli(['migrate'], { DATABASE_URL: 'mysql://db.example.com/gatehouse' }),
    ]);
    for (const [i, r] of results.entries()) {
      expect(r.code, `run ${i}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain(i < 2 ? 'PORT' : 'DATABASE_URL');
    }
    expect(await untouched()).toBe(true);
  }, 120_000);

  it('migrate applies the migrations, then says the database is up to date', async () => {
    const first = await cli(['migrate']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`applied: ${Object.keys(MIGRATIONS).join(', ')}`);
    const applied = await query<{ name: string }>(sql`select name from kysely_migration order by name`);
    expect(applied.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());

    const second = await cli(['migrate']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
  }, 120_000);

  describe('against an account registered through the API', () => {
    let server: Awaited<ReturnType<typeof openApp>>;
    const email = uniqueEmail();
    let accessToken: string;
    /**
     * The account as a running instance shows it once its account cache has expired: the CLI is
     * another process and (without Redis) cannot tell the instance, so a change shows within
     * ACCOUNT_CACHE_TTL_MS.
     */
    const me = async (token = accessToken) => {
      server.clock.advance(ACCOUNT_CACHE_TTL_MS);
      const res = await server.app.inject({ method: 'GET', url: '/v1/users/me', headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { tier: string; role: string; limits: { per_minute: number; per_day: number }; personal_organization_id: string };
    };
    /** The user's role and their personal organization's plan (what set-tier with an email changes). */
    const row = async () =>
      (await query<{ tier: string; role: string; limit_per_minute: number | null; limit_per_day: number | null; limit_streams: number | null }>(
        sql`select o.tier, u.role, o.limit_per_minute, o.limit_per_day, o.limit_streams from users u join organizations o on o.id = u.personal_org_id where u.email = ${email}`,
      ))[0];

    beforeAll(async () => {
      server = await openApp(databaseUrl, schema);
      const reg = await server.app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: STRONG_PASSWORD, name: 'Operator Test' } });
      expect(reg.statusCode, reg.body).toBe(201);
      // Confirmed, as its mailed link would (turning on a second factor needs it).
      await server.deps.database.db.updateTable('users').set({ email_verified: 1 }).where('id', '=', reg.json().id).execute();
      const login = await server.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: STRONG_PASSWORD } });
      expect(login.statusCode, login.body).toBe(200);
      accessToken = login.json().access_token;
    });
    afterAll(() => server?.close());

    it('users set-tier changes the tier; custom limits with --per-minute/--per-day', async () => {
      expect(await me()).toMatchObject({ tier: 'free', limits: { per_minute: 100, per_day: 10_000 } });

      const pro = await cli(['users', 'set-tier', email, 'pro']);
      expect(pro.code, pro.stderr).toBe(0);
      expect(pro.stdout).toContain(`${email} is now pro`);
      expect(await row()).toMatchObject({ tier: 'pro', limit_per_minute: null, limit_per_day: null });
      expect(await me()).toMatchObject({ tier: 'pro', limits: { per_minute: 1_000, per_day: 100_000 } });

      const enterprise = await cli(['users', 'set-tier', email, 'enterprise', '--per-minute', '5', '--per-day', '50', '--streams', '7']);
      expect(enterprise.code, enterprise.stderr).toBe(0);
      expect(enterprise.stdout).toContain(`${email} is now enterprise (per minute 5, per day 50, streams 7)`);
      expect(await row()).toMatchObject({ tier: 'enterprise', limit_per_minute: 5, limit_per_day: 50, limit_streams: 7 });
      expect(await me()).toMatchObject({ tier: 'enterprise', limits: { per_minute: 5, per_day: 50, streams: 7 } });

      // Custom limits are for enterprise only, as help says; the refusal changes nothing.
      const refused = await cli(['users', 'set-tier', email, 'pro', '--per-minute', '5000']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('custom limits (--per-minute, --per-day, --streams) are for the enterprise tier, not pro');
      expect(await row()).toMatchObject({ tier: 'enterprise', limit_per_minute: 5, limit_per_day: 50 });

      // Moving to another tier drops the custom limits; back to enterprise, they are gone.
      expect((await cli(['users', 'set-tier', email, 'standard'])).code).toBe(0);
      expect(await row()).toMatchObject({ tier: 'standard', limit_per_minute: null, limit_per_day: null, limit_streams: null });
      // An organization's id names it directly: here the account's personal one.
      const orgId = (await me()).personal_organization_id;
      const byId = await cli(['users', 'set-tier', orgId, 'pro']);
      expect(byId.code, byId.stderr).toBe(0);
      expect(byId.stdout).toContain(`(${orgId}) is now pro`);
      expect(await row()).toMatchObject({ tier: 'pro', limit_per_minute: null, limit_per_day: null, limit_streams: null });
      expect((await cli(['users', 'set-tier', email, 'enterprise', '--per-day', '70'])).code).toBe(0);
      expect(await row()).toMatchObject({ tier: 'enterprise', limit_per_minute: null, limit_per_day: 70 });
      expect(await me()).toMatchObject({ tier: 'enterprise', limits: { per_minute: 1_000, per_day: 70 } });
    }, 120_000);

    it('refuses a bad tier, a bad number or an unknown account with exit 2 and changes nothing', async () => {
      const before = await row();
      const [tier, zero, word, negative, huge, nobody, noOrg] = await Promise.all([
        cli(['users', 'set-tier', email, 'gold']),
        cli(['users', 'set-tier', email, 'enterprise', '--per-minute', '0']),
        cli(['users', 'set-tier', email, 'enterprise', '--per-minute', 'abc']),
        cli(['users', 'set-tier', email, 'enterprise', '--per-day=-5']),
        cli(['users', 'set-tier', email, 'enterprise', '--per-day', '99999999999']),
        cli(['users', 'set-tier', 'nobody@example.com', 'pro']),
        cli(['users', 'set-tier', 'org_01m80h15sxexf8nyy2raa7xwfh', 'pro']),
      ]);
      expect(tier!.code).toBe(2);
      expect(tier!.stderr).toContain('unknown tier "gold"');
      for (const t of TIERS) expect(tier!.stderr).toContain(t);
      for (const [r, flag] of [[zero, '--per-minute'], [word, '--per-minute'], [negative, '--per-day'], [huge, '--per-day']] as const) {
        expect(r!.code, r!.stdout + r!.stderr).toBe(2);
        expect(r!.stderr).toContain(flag);
        expect(r!.stdout).toBe('');
      }
      expect(nobody!.code).toBe(2);
      expect(nobody!.stderr).toContain('no account with email nobody@example.com');
      expect(noOrg!.code).toBe(2);
      expect(noOrg!.stderr).toContain('no organization with id org_01m80h15sxexf8nyy2raa7xwfh');
      expect(await row()).toEqual(before);
    }, 120_000);

    it('users list shows accounts newest first, filtered by tier and by part of the email', async () => {
      const other = uniqueEmail();
      const reg = await server.app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: other, password: STRONG_PASSWORD, name: 'Second' } });
      expect(reg.statusCode, reg.body).toBe(201);

      const all = await cli(['users', 'list']);
      expect(all.code, all.stderr).toBe(0);
      const lines = all.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^ID\s+EMAIL\s+TIER\s+PER MINUTE\s+PER DAY\s+ROLE\s+FLAGS\s+CREATED$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual([other, email]);
      expect(lines[2]).toMatch(/\senterprise\s+1000\s+70\*\s/);

      const [byTier, byEmail, upper, none, json, bad] = await Promise.all([
        cli(['users', 'list', '--tier', 'free']),
        cli(['users', 'list', '--email', email.slice(2, 12)]),
        cli(['users', 'list', '--email', other.toUpperCase()]),
        cli(['users', 'list', '--email', '%']),
        cli(['users', 'list', '--json', '--limit', '1']),
        cli(['users', 'list', '--tier', 'gold']),
      ]);
      expect(byTier.stdout).toContain(other);
      expect(byTier.stdout).not.toContain(email);
      expect(byEmail.stdout).toContain(email);
      expect(byEmail.stdout).not.toContain(other);
      expect(upper.stdout).toContain(other);
      expect(none.stdout.trim()).toBe('no accounts match'); // % is a character here, not a wildcard
      const parsed = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(parsed).toHaveLength(1);
      expect(parsed[0]).toMatchObject({ email: other, tier: 'free', limits: { per_minute: 100, per_day: 10_000 }, custom_limits: false });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('unknown tier "gold"');
    }, 120_000);

    it('users grant-admin makes the account an admin', async () => {
      expect((await row())!.role).toBe('user');
      const res = await cli(['users', 'grant-admin', email]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`${email} is now an admin`);
      expect((await row())!.role).toBe('admin');
      expect((await me()).role).toBe('admin');

      const nobody = await cli(['users', 'grant-admin', 'nobody@example.com']);
      expect(nobody.code).toBe(2);
      expect(nobody.stderr).toContain('no account with email nobody@example.com');
    }, 120_000);

    it('users reset-mfa turns off a second factor the owner lost: the password alone signs in again', async () => {
      const enrol = await server.app.inject({ method: 'POST', url: '/v1/users/me/mfa/totp', headers: bearer(accessToken), payload: { password: STRONG_PASSWORD } });
      const totp = OTPAuth.URI.parse(enrol.json().otpauth_url) as OTPAuth.TOTP;
      const confirm = await server.app.inject({ method: 'POST', url: '/v1/users/me/mfa/totp/confirm', headers: bearer(accessToken), payload: { code: totp.generate({ timestamp: server.clock.now() }) } });
      expect(confirm.statusCode, confirm.body).toBe(200);
      const login = () => server.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: STRONG_PASSWORD } });
      expect((await login()).json().code).toBe('mfa_required');

      const res = await cli(['users', 'reset-mfa', email]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`${email}: two-step verification is off`);
      expect((await login()).statusCode).toBe(200);
      const log = await server.app.inject({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(accessToken) });
      expect(log.json().data.find((e: { type: string }) => e.type === 'mfa_disabled')).toMatchObject({ detail: { method: 'totp', by: 'operator' } });
      const again = await cli(['users', 'reset-mfa', email]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('has no second factor; nothing changed');
      expect((await cli(['users', 'reset-mfa', 'nobody@example.com'])).code).toBe(2);
    }, 120_000);

    it('users release-provider-addresses releases the confirmed address of every account whose only ways in are that provider\'s identities', async () => {
      const db = server.deps.database.db;
      /** An account as a provider not trusted for addresses made it before: confirmed, no password, its identities. */
      const providerAccount = async (providers: string[], password = false) => {
        const address = uniqueEmail();
        const reg = await server.app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: address, password: STRONG_PASSWORD, name: 'Provider user' } });
        expect(reg.statusCode, reg.body).toBe(201);
        const id = reg.json().id as string;
        await db.updateTable('users').set({ email_verified: 1, ...(password ? {} : { password_hash: '' }) }).where('id', '=', id).execute();
        for (const provider of providers) {
          await db.insertInto('identities').values({ id: newId('identity'), user_id: id, provider, subject: randomBytes(6).toString('hex'), email: address, created_at: new Date().toISOString(), last_used_at: null }).execute();
        }
        return { id, address };
      };
      const squatter = await providerAccount(['tenant-idp']);
      const withPassword = await providerAccount(['tenant-idp'], true);
      const alsoOther = await providerAccount(['tenant-idp', 'github']);
      const otherProvider = await providerAccount(['github']);

      const res = await cli(['users', 'release-provider-addresses', 'tenant-idp']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('released 1 address');
      const address = async (id: string) => db.selectFrom('users').select(['email', 'email_verified']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(await address(squatter.id)).toEqual({ email: `${squatter.id}@unclaimed.invalid`, email_verified: 0 });
      for (const kept of [withPassword, alsoOther, otherProvider]) expect(await address(kept.id)).toEqual({ email: kept.address, email_verified: 1 });
      // The address's owner registers it now.
      const owner = await server.app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email: squatter.address, password: STRONG_PASSWORD, name: 'Owner' } });
      expect(owner.statusCode, owner.body).toBe(201);
      const again = await cli(['users', 'release-provider-addresses', 'tenant-idp']);
      expect(again.stdout).toContain('released 0 addresses');
      expect((await cli(['users', 'release-provider-addresses'])).code).toBe(2);
    }, 120_000);

    it('keys rotate adds a signing key and retires the old one; JWKS then serves both', async () => {
      const before = (await server.app.inject({ method: 'GET', url: '/v1/.well-known/jwks.json' })).json() as { keys: { kid: string }[] };
      expect(before.keys).toHaveLength(1);
      const oldKid = before.keys[0]!.kid;
      expect(decodeJwtHeader(accessToken).kid).toBe(oldKid);

      const res = await cli(['keys', 'rotate']);
      expect(res.code, res.stderr).toBe(0);
      const newKid = /new signing key (\S+);/.exec(res.stdout)?.[1];
      expect(newKid, res.stdout).toBeDefined();
      expect(newKid).not.toBe(oldKid);
      const keys = await query<{ kid: string; retired_at: string | null }>(sql`select kid, retired_at from signing_keys`);
      expect(keys).toHaveLength(2);
      expect(keys.find((k) => k.kid === oldKid)!.retired_at).not.toBeNull();
      expect(keys.find((k) => k.kid === newKid)!.retired_at).toBeNull();

      // An instance started now (or any instance after its reload) publishes both keys and signs
      // with the new one; tokens signed by the retired key keep working until they expire.
      const restarted = await openApp(databaseUrl, schema);
      try {
        const jwks = (await restarted.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: { kid: string }[] };
        expect(jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
        const v1Jwks = (await restarted.app.inject({ method: 'GET', url: '/v1/.well-known/jwks.json' })).json() as { keys: { kid: string }[] };
        expect(v1Jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());

        const login = await restarted.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: STRONG_PASSWORD } });
        expect(login.statusCode, login.body).toBe(200);
        expect(decodeJwtHeader(login.json().access_token).kid).toBe(newKid);
        const old = await restarted.app.inject({ method: 'GET', url: '/v1/users/me', headers: bearer(accessToken) });
        expect(old.statusCode, old.body).toBe(200);
      } finally {
        await restarted.close();
      }
    }, 120_000);
  });

  describe('users disable|enable and keys revoke, on an account with API keys', () => {
    let server: Awaited<ReturnType<typeof openApp>>;
    const email = uniqueEmail();
    let userId: string;
    let orgId: string;
    let tokens: { access_token: string; refresh_token: string };
    const keys: Array<{ id: string; key: string }> = [];
    /** Without Redis the CLI cannot tell the instance: it sees an account change once its cached copy expires. */
    const afterAccountCache = () => server.clock.advance(ACCOUNT_CACHE_TTL_MS);
    const api = (method: 'GET' | 'POST', url: string, token?: string, payload?: object) =>
      server.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });
    const login = () => api('POST', '/v1/auth/login', undefined, { username: email, password: STRONG_PASSWORD });

    beforeAll(async () => {
      server = await openApp(databaseUrl, schema);
      const reg = await api('POST', '/v1/auth/register', undefined, { email, password: STRONG_PASSWORD, name: 'Operated' });
      expect(reg.statusCode, reg.body).toBe(201);
      userId = reg.json().id;
      tokens = (await login()).json();
      orgId = (await api('GET', '/v1/users/me', tokens.access_token)).json().personal_organization_id;
      for (const name of ['runtime', 'spare']) keys.push((await api('POST', '/v1/api-keys', tokens.access_token, { name })).json());
    });
    afterAll(() => server?.close());

    it('users disable revokes the sessions and refuses logins and keys; enable (by id) lets the account back in', async () => {
      const disabled = await cli(['users', 'disable', email]);
      expect(disabled.code, disabled.stderr).toBe(0);
      expect(disabled.stdout.trim()).toBe(`${email} (${userId}) is disabled: signed out everywhere; its logins, tokens and API keys are refused`);
      expect(disabled.stderr).toContain('note: REDIS_URL is not set, so running instances were not told');
      // What the admin API does: the flag, every session revoked with its event, the security log entry.
      expect(await query<{ disabled: number }>(sql`select disabled from users where id = ${userId}`)).toEqual([{ disabled: 1 }]);
      const sessions = await query<{ revoked_reason: string | null }>(sql`select revoked_reason from sessions where user_id = ${userId}`);
      expect(sessions.map((r) => r.revoked_reason)).toEqual(sessions.map(() => 'account_disabled'));
      const revokedEvents = await query<{ data: string }>(sql`select data from events where org_id = ${orgId} and type = 'session.revoked'`);
      expect(revokedEvents.map((e) => JSON.parse(e.data).reason)).toEqual(['account_disabled']);
      const log = await query<{ detail: string; ip: string | null }>(sql`select detail, ip from security_events where user_id = ${userId} and type = 'account_updated_by_admin'`);
      expect(log.map((e) => ({ ...e, detail: JSON.parse(e.detail) }))).toEqual([{ ip: null, detail: { by: 'operator', changes: { disabled: true } } }]);

      afterAccountCache();
      expect((await api('GET', '/v1/agents', keys[0]!.key)).json().code).toBe('account_disabled');
      expect((await login()).json().code).toBe('account_disabled');
      expect((await api('POST', '/v1/auth/refresh', undefined, { refresh_token: tokens.refresh_token })).statusCode).toBe(401);
      const again = await cli(['users', 'disable', userId]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe(`${email} is already disabled; nothing changed`);

      const enabled = await cli(['users', 'enable', userId]);
      expect(enabled.code, enabled.stderr).toBe(0);
      expect(enabled.stdout.trim()).toBe(`${email} (${userId}) is enabled: it can sign in again`);
      afterAccountCache();
      expect((await login()).statusCode).toBe(200);
      expect((await api('GET', '/v1/agents', keys[0]!.key)).statusCode).toBe(200);
      expect((await cli(['users', 'enable', email])).stdout.trim()).toBe(`${email} is not disabled; nothing changed`);
    }, 120_000);

    it('says so and exits 1 when Redis does not take the message, the change saved', async () => {
      // Nothing listens on port 1: the publish fails, as with Redis down.
      const unreachable = await cli(['users', 'disable', email], { REDIS_URL: 'redis://127.0.0.1:1' });
      expect(unreachable.code, unreachable.stderr).toBe(1);
      expect(unreachable.stdout.trim()).toBe(`${email} (${userId}) is disabled: signed out everywhere; its logins, tokens and API keys are refused`);
      expect(unreachable.stderr).toMatch(/^gatehouse: running instances were not told through Redis \(account-changed: .+\); they see the change when their cached copies expire/);
      expect(await query(sql`select disabled from users where id = ${userId}`)).toEqual([{ disabled: 1 }]);
      expect((await cli(['users', 'enable', email])).code).toBe(0);
    }, 120_000);

    it('keys revoke revokes any key by id with the API\'s effects: counter, audit log, event, security log', async () => {
      const [runtime, spare] = keys as [{ id: string; key: string }, { id: string; key: string }];
      const count = async () => Number((await query<{ n: number }>(sql`select api_key_count as n from organizations where id = ${orgId}`))[0]!.n);
      const before = await count();
      const res = await cli(['keys', 'revoke', runtime.id]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.trim()).toMatch(new RegExp(`^revoked API key ${runtime.id} "runtime" \\(gth_\\w{4}…\\w{4}\\) of ${email.replace(/\./g, '\\.')} in organization ${orgId}$`));
      expect(res.stdout).not.toContain(runtime.key);
      expect(await count()).toBe(before - 1);
      expect(await query(sql`select actor_user_id, target_id from audit_events where org_id = ${orgId} and action = 'api_key.revoked'`)).toEqual([{ actor_user_id: null, target_id: runtime.id }]);
      const events = await query<{ data: string }>(sql`select data from events where org_id = ${orgId} and type = 'api_key.revoked'`);
      expect(events.map((e) => JSON.parse(e.data))).toEqual([{ id: runtime.id, ids: [runtime.id] }]);
      const log = await query<{ detail: string }>(sql`select detail from security_events where user_id = ${userId} and type = 'api_key_revoked'`);
      expect(log.map((e) => JSON.parse(e.detail))).toEqual([{ api_key_id: runtime.id, name: 'runtime', by: 'operator' }]);

      // The instance drops its cached copy of a key within 5 minutes when nothing tells it (no Redis).
      server.clock.advance(5 * 60_000 + 1_000);
      expect((await api('GET', '/v1/agents', runtime.key)).statusCode).toBe(401);
      expect((await api('GET', '/v1/agents', spare.key)).statusCode).toBe(200);
      const listed = (await api('GET', '/v1/api-keys', (await login()).json().access_token)).json().data as { id: string }[];
      expect(listed.map((k) => k.id)).toEqual([spare.id]);

      const twice = await cli(['keys', 'revoke', runtime.id]);
      expect(twice.code).toBe(2);
      expect(twice.stderr).toContain(`no live API key with id ${runtime.id} (unknown, or already revoked)`);
      expect(await count()).toBe(before - 1);
    }, 120_000);

    it('exits 2 with a message for an unknown account or key, a secret given as an id, or missing or extra arguments', async () => {
      const [nobody, noId, secret, junk, bare, extra, noKey] = await Promise.all([
        cli(['users', 'disable', 'nobody@example.com']),
        cli(['users', 'enable', 'usr_01m80h15sxexf8nyy2raa7xwfh']),
        cli(['keys', 'revoke', keys[1]!.key]),
        cli(['keys', 'revoke', 'abc']),
        cli(['users', 'disable']),
        cli(['users', 'disable', email, 'other@example.com']),
        cli(['keys', 'revoke', 'key_01m80h15sxexf8nyy2raa7xwfh']),
      ]);
      for (const r of [nobody, noId, secret, junk, bare, extra, noKey]) {
        expect(r!.code, r!.stdout + r!.stderr).toBe(2);
        expect(r!.stdout).toBe('');
      }
      expect(nobody!.stderr).toContain('no account with email nobody@example.com');
      expect(noId!.stderr).toContain('no account with id usr_01m80h15sxexf8nyy2raa7xwfh');
      expect(secret!.stderr).toContain("that is an API key's secret, not its id");
      expect(secret!.stderr).not.toContain(keys[1]!.key);
      expect(junk!.stderr).toContain('"abc" is not an API key id');
      for (const r of [bare, extra]) expect(r!.stderr).toContain('Usage: npx gatehouse users disable <email|user_id>');
      expect(noKey!.stderr).toContain('no live API key with id key_01m80h15sxexf8nyy2raa7xwfh');
      // Nothing changed: the account is enabled and the spare key still live.
      expect(await query(sql`select disabled from users where id = ${userId}`)).toEqual([{ disabled: 0 }]);
      expect(await query(sql`select revoked_at from api_keys where id = ${keys[1]!.id}`)).toEqual([{ revoked_at: null }]);
    }, 120_000);
  });

  it('works as `npx gatehouse` from the repository root', async () => {
    // Offline and never installing: a missing local bin must fail here, not fetch a package named gatehouse.
    const npx = (args: string[]) =>
      run('npx', ['gatehouse', ...args], ROOT_DIR, userEnv({
        DATABASE_URL: databaseUrl,
        npm_config_yes: 'false',
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
      }));
    const [help, sub, migrate] = await Promise.all([npx(['--help']), npx(['users', 'set-tier', '--help']), npx(['migrate'])]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npx gatehouse <command>/);
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).toMatch(/^Usage: npx gatehouse users set-tier/);
    // It reads the same environment: here the test's database, already migrated.
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout.trim()).toBe('database is up to date');
  }, 120_000);
});
