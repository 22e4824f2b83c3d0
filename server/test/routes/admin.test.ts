import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, type TestApp } from '../harness.js';

describe(`admin API (${dialect})`, () => {
  let t: TestApp;
  let adminToken: string;
  beforeAll(async () => {
    t = await createTestApp();
    const admin = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    adminToken = admin.tokens.access_token;
  });
  afterAll(() => t.close());

  it('is closed to non-admins (403 forbidden) and to API keys (403 session_required)', async () => {
    const user = await t.signUp();
    const res = await t.request({ method: 'GET', url: '/v1/admin/users', headers: bearer(user.tokens.access_token) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(adminToken), payload: { name: 'admin key' } })).json().key as string;
    const viaKey = await t.request({ method: 'GET', url: '/v1/admin/users', headers: bearer(key) });
    expect(viaKey.statusCode).toBe(403);
    expect(viaKey.json().code).toBe('session_required');
  });

  it('finds a user by email in any letter case', async () => {
    const user = await t.register();
    const res = await t.request({ method: 'GET', url: `/v1/admin/users?email=${encodeURIComponent(user.email.toUpperCase())}`, headers: bearer(adminToken) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([expect.objectContaining({ id: user.id, email: user.email, tier: 'free', disabled: false, role: 'user' })]);
    expect(res.body).not.toContain('password');
  });

  it('disabling an account signs it out everywhere and refuses login and keys', async () => {
    const user = await t.signUp();
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name: 'k' } })).json().key as string;
    const patch = await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { disabled: true } });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().disabled).toBe(true);
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).json().code).toBe('account_disabled');
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) })).statusCode).toBe(401);
    const login = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: STRONG_PASSWORD } });
    expect(login.statusCode).toBe(403);
    expect(login.json().code).toBe('account_disabled');
    await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { disabled: false } });
    expect((await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('custom limits can be set and cleared', async () => {
    const user = await t.register();
    const set = await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { tier: 'enterprise', limits: { per_minute: 7, per_day: 70 } } });
    expect(set.json()).toMatchObject({ limits: { per_minute: 7, per_day: 70 }, custom_limits: { per_minute: 7, per_day: 70 } });
    const cleared = await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { limits: null } });
    expect(cleared.json()).toMatchObject({ tier: 'enterprise', custom_limits: null, limits: { per_minute: 1000, per_day: 100000 } });
  });

  it('keeps custom limits to the enterprise tier: refused elsewhere, dropped on a move to another tier', async () => {
    const user = await t.register();
    const patch = (payload: Record<string, unknown>) => t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload });
    for (const payload of [{ limits: { per_minute: 7, per_day: 70 } }, { tier: 'pro', limits: { per_minute: 7, per_day: 70 } }]) {
      const refused = await patch(payload);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/limits', code: 'enterprise_only' }] });
    }
    expect((await patch({ tier: 'enterprise', limits: { per_minute: 7, per_day: 70 } })).statusCode).toBe(200);
    const moved = await patch({ tier: 'pro' });
    expect(moved.json()).toMatchObject({ tier: 'pro', custom_limits: null, limits: { per_minute: 1000, per_day: 100000 } });
  });

  it('validates: unknown id 404, bad tier, bad limits, empty body 400', async () => {
    const user = await t.register();
    const patch = (payload: unknown, id = user.id) => t.request({ method: 'PATCH', url: `/v1/admin/users/${id}`, headers: bearer(adminToken), payload: payload as object });
    expect((await patch({ tier: 'pro' }, 'usr_01m80h15sxexf8nyy2raa7xwfh')).statusCode).toBe(404);
    expect((await patch({ tier: 'pro' }, 'nonsense')).statusCode).toBe(404);
    for (const body of [{ tier: 'platinum' }, { limits: { per_minute: 0, per_day: 10 } }, { limits: { per_minute: 5 } }, {}, { disabled: 'yes' }, { role: 'admin' }]) {
      const res = await patch(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });
});
