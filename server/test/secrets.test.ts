import { createHash } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, uniqueEmail, type TestApp } from './harness.js';

/** Distinctive, so a hit anywhere is certainly a leak and not a coincidence. */
const OLD_PASSWORD = 'Old-Secret-Walrus-Kayak-7319';
const NEW_PASSWORD = 'New-Secret-Heron-Canyon-8426';
const WRONG_PASSWORD = 'Typo-Secret-Walrus-Kayak-7318';

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

describe(`secret hygiene (${dialect})`, () => {
  let t: TestApp;
  const responses: LightMyRequestResponse[] = [];
  const refreshTokens: string[] = [];
  const accessTokens: string[] = [];
  let email: string;

  async function call(options: InjectOptions): Promise<LightMyRequestResponse> {
    const res = await t.request(options);
    responses.push(res);
    return res;
  }

  /** Every row of every application table, as one searchable text. */
  async function dumpDatabase(): Promise<{ text: string; tables: Record<string, Array<Record<string, unknown>>> }> {
    const db = t.deps.database.db;
    // Every base table of this app (on PostgreSQL the app's introspector reads its own schema
    // only: kernel/db/current-schema-introspector.ts), without Kysely's migration bookkeeping.
    const found = (await db.introspection.getTables()).filter((table) => !table.isView).map((table) => table.name);
    expect(found, 'the table listing found this app\'s tables').toEqual(expect.arrayContaining(['users', 'api_keys', 'agents']));
    const names = [...new Set(['users', 'sessions', 'refresh_tokens', 'signing_keys', ...found])];
    const tables: Record<string, Array<Record<string, unknown>>> = {};
    for (const name of names) {
      tables[name] = (await db.selectFrom(name as 'users').selectAll().execute()) as Array<Record<string, unknown>>;
    }
    expect(Object.keys(tables)).toEqual(expect.arrayContaining(['users', 'sessions', 'refresh_tokens', 'signing_keys']));
    return { text: JSON.stringify(tables), tables };
  }

  beforeAll(async () => {
    t = await createTestApp();
    email = uniqueEmail();

    const reg = await call({ method: 'POST', url: '/v1/auth/register', payload: { email, password: OLD_PASSWORD, name: 'Secret Keeper' } });
    expect(reg.statusCode, reg.body).toBe(201);
    // A refused duplicate registration carries the password too.
    expect((await call({ method: 'POST', url: '/v1/auth/register', payload: { email, password: OLD_PASSWORD, name: 'Twin' } })).statusCode).toBe(409);

    const first = await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: OLD_PASSWORD } });
    expect(first.statusCode, first.body).toBe(200);
    const firstTokens = first.json();
    refreshTokens.push(firstTokens.refresh_token);
    accessTokens.push(firstTokens.access_token);

    // A second session, so the password change has another one to revoke.
    const second = await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: OLD_PASSWORD } });
    expect(second.statusCode).toBe(200);
    refreshTokens.push(second.json().refresh_token);

    const refreshed = await call({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: firstTokens.refresh_token } });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const current = refreshed.json();
    refreshTokens.push(current.refresh_token);
    accessTokens.push(current.access_token);

    // A wrong current password, a refused new one, then the real change.
    expect((await call({ method: 'POST', url: '/v1/users/me/password', headers: bearer(current.access_token), payload: { current_password: WRONG_PASSWORD, new_password: NEW_PASSWORD } })).statusCode).toBe(400);
    expect((await call({ method: 'POST', url: '/v1/users/me/password', headers: bearer(current.access_token), payload: { current_password: OLD_PASSWORD, new_password: OLD_PASSWORD } })).statusCode).toBe(400);
    const changed = await call({ method: 'POST', url: '/v1/users/me/password', headers: bearer(current.access_token), payload: { current_password: OLD_PASSWORD, new_password: NEW_PASSWORD } });
    expect(changed.statusCode, changed.body).toBe(204);

    // Failed logins: the old password, a typo, and a malformed body carrying the new one.
    expect((await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: OLD_PASSWORD } })).statusCode).toBe(401);
    expect((await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: WRONG_PASSWORD } })).statusCode).toBe(401);
    expect((await call({ method: 'POST', url: '/v1/auth/login', headers: { 'content-type': 'application/json' }, payload: `{"username":"${email}","password":"${NEW_PASSWORD}"` })).statusCode).toBe(400);
    expect((await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: NEW_PASSWORD, extra: NEW_PASSWORD } })).statusCode).toBe(400);

    const last = await call({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: NEW_PASSWORD } });
    expect(last.statusCode, last.body).toBe(200);
    refreshTokens.push(last.json().refresh_token);
    accessTokens.push(last.json().access_token);
    expect((await call({ method: 'GET', url: '/v1/users/me', headers: bearer(last.json().access_token) })).statusCode).toBe(200);
    // A reused (rotated) refresh token past the grace window: the reuse alarm must not log it either.
    t.clock.advance(11_000);
    expect((await call({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: firstTokens.refresh_token } })).statusCode).toBe(401);
  });
  afterAll(() => t.close());

  it('actually captured logs and responses to search', () => {
    expect(t.logs.length).toBeGreaterThan(10);
    expect(t.logs.some((line) => line.includes('"/v1/auth/login"'))).toBe(true);
    expect(t.logs.some((line) => line.includes('"/v1/users/me/password"'))).toBe(true);
    expect(responses.length).toBeGreaterThan(10);
  });

  it('never writes a password to the log', () => {
    for (const secret of [OLD_PASSWORD, NEW_PASSWORD, WRONG_PASSWORD]) {
      const hits = t.logs.filter((line) => line.includes(secret));
      expect(hits, `log lines containing ${secret}`).toEqual([]);
    }
  });

  it('never writes a refresh or access token to the log', () => {
    for (const secret of [...refreshTokens, ...accessTokens]) {
      expect(t.logs.filter((line) => line.includes(secret))).toEqual([]);
    }
    // Not even the signature part of a JWT.
    for (const token of accessTokens) {
      const signature = token.split('.')[2]!;
      expect(t.logs.filter((line) => line.includes(signature))).toEqual([]);
    }
  });

  it('never echoes a password in a response body or header', () => {
    for (const res of responses) {
      const text = res.body + JSON.stringify(res.headers);
      for (const secret of [OLD_PASSWORD, NEW_PASSWORD, WRONG_PASSWORD]) {
        expect(text.includes(secret), `${res.statusCode} ${res.body}`).toBe(false);
      }
      expect(text).not.toMatch(/\$argon2/);
      expect(text).not.toMatch(/password_hash/);
    }
  });

  it('stores no password anywhere in the database, only an argon2id hash', async () => {
    const { text, tables } = await dumpDatabase();
    for (const secret of [OLD_PASSWORD, NEW_PASSWORD, WRONG_PASSWORD]) expect(text.includes(secret)).toBe(false);
    // Not base64- or hex-encoded either.
    for (const secret of [OLD_PASSWORD, NEW_PASSWORD]) {
      expect(text.includes(Buffer.from(secret).toString('base64'))).toBe(false);
      expect(text.includes(Buffer.from(secret).toString('hex'))).toBe(false);
    }
    const users = tables.users!;
    expect(users).toHaveLength(1);
    const hash = String(users[0]!.password_hash);
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    // The hash is of the new password: the old one no longer matches.
    expect(await t.deps.hasher.verify(hash, NEW_PASSWORD)).toBe(true);
    expect(await t.deps.hasher.verify(hash, OLD_PASSWORD)).toBe(false);
  });

  it('stores refresh tokens only as SHA-256 hex', async () => {
    const { text, tables } = await dumpDatabase();
    expect(refreshTokens.length).toBeGreaterThanOrEqual(4);
    for (const token of refreshTokens) {
      expect(token.length).toBeGreaterThanOrEqual(43); // ≥ 256 bits of base64url
      expect(text.includes(token), 'plaintext refresh token in the database').toBe(false);
      // Nor any long piece of it (prefix stripped, or truncated copies).
      const body = token.slice(-43);
      expect(text.includes(body.slice(0, 32))).toBe(false);
    }
    const rows = tables.refresh_tokens!;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(String(row.token_hash)).toMatch(/^[0-9a-f]{64}$/);
    // Each stored row is the SHA-256 of a token handed out; the live one is among them.
    const issued = new Set(refreshTokens.map(sha256Hex));
    for (const row of rows) expect(issued.has(String(row.token_hash))).toBe(true);
    expect(rows.map((r) => r.token_hash)).toContain(sha256Hex(refreshTokens.at(-1)!));
    // Access tokens are not stored at all.
    for (const token of accessTokens) expect(text.includes(token.split('.')[2]!)).toBe(false);
  });
});
