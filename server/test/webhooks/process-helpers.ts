import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import { postJson } from '../server-process.js';

/** Helpers for suites that drive real `gatehouse serve` processes over HTTP. */

export async function signUpOver(base: string): Promise<string> {
  const email = `hooks-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'Tidal-Compass-Orchard-9';
  expect((await postJson(base, '/v1/auth/register', { email, password, name: 'Hooks' })).status).toBe(201);
  const login = await postJson(base, '/v1/auth/login', { username: email, password });
  return ((await login.json()) as { access_token: string }).access_token;
}

export async function getJson<T = any>(base: string, path: string, token: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** Polls twice a second: a free account's rate limit must outlast a 40 s wait. */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value)) {
    if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 500));
    value = await probe();
  }
  return value;
}

/**
 * A throwaway PostgreSQL database next to `adminUrl`'s (DATABASE_URL by default), for suites whose
 * servers share one. `prefix` names the suite, so a leftover database says where it came from.
 */
export async function scratchPostgres(adminUrl = process.env.DATABASE_URL!, prefix = 'gatehouse_hooks'): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
