import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';

describe(`register, login, me (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('registers, logs in and reads the account with the access token', async () => {
    const email = uniqueEmail();
    const reg = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email, password: STRONG_PASSWORD, name: '  Ada Lovelace ' } });
    expect(reg.statusCode).toBe(201);
    const user = reg.json();
    expect(user).toEqual({ id: expect.stringMatching(/^usr_[0-9a-hjkmnp-tv-z]{26}$/), email, name: 'Ada Lovelace', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(reg.body).not.toContain('password');

    const login = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: STRONG_PASSWORD } });
    expect(login.statusCode).toBe(200);
    const tokens = login.json();
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 900, scope: expect.stringContaining('agents:read') });
    expect(login.headers['cache-control']).toBe('no-store');

    const me = await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(tokens.access_token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: user.id, email, tier: 'free', email_verified: false, has_password: true, limits: { per_minute: 100, per_day: 10000 } });
  });

  it('logs in with an OAuth2 password-grant form post', async () => {
    const { email, password } = await t.register();
    const res = await t.request({
      method: 'POST', url: '/v1/auth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'password', username: email, password }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().token_type).toBe('bearer');
  });

  it('refuses a form post on register (JSON only there)', async () => {
    const res = await t.request({ method: 'POST', url: '/v1/auth/register', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=a@b.co' });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_media_type');
  });

  it('answers 409 email_taken for the same email in any letter case', async () => {
    const { email } = await t.register();
    const res = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: email.toUpperCase(), password: STRONG_PASSWORD, name: 'Twin' } });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'email_taken', status: 409, type: 'http://gatehouse.test/docs/errors#email_taken' });
  });

  it('lets exactly one of many concurrent registrations of one email win', async () => {
    const email = uniqueEmail();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: i % 2 ? email.toUpperCase() : email, password: STRONG_PASSWORD, name: 'Racer' } })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('answers the same 401 for an unknown email and a wrong password', async () => {
    const { email } = await t.register();
    const unknown = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: uniqueEmail(), password: STRONG_PASSWORD } });
    const wrong = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: email, password: 'not-the-password' } });
    expect(unknown.statusCode).toBe(401);
    expect(wrong.statusCode).toBe(401);
    const strip = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });
    expect(strip(unknown.json())).toEqual(strip(wrong.json()));
    expect(unknown.json().code).toBe('invalid_credentials');
  });
});
