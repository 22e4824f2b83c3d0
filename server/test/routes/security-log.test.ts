import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { refuseInserts } from '../refuse-inserts.js';

describe(`security log (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const ua = { 'user-agent': 'SecurityTest/1.0' };
  const list = async (token: string) => {
    const res = await t.request({ method: 'GET', url: '/v1/users/me/security-events?limit=100', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    return res.json().data as Array<{ type: string; ip: string | null; user_agent: string | null; created_at: string; detail: Record<string, unknown> }>;
  };

  it('records each security event with time, IP and user agent', async () => {
    const user = await t.register();
    const wrong = await t.request({ method: 'POST', url: '/v1/auth/login', headers: ua, remoteAddress: '203.0.113.7', payload: { username: user.email, password: 'definitely-wrong' } });
    expect(wrong.statusCode).toBe(401);
    const session = (await t.request({ method: 'POST', url: '/v1/auth/login', headers: ua, remoteAddress: '203.0.113.8', payload: { username: user.email, password: user.password } })).json();
    const auth = { ...bearer(session.access_token), ...ua };
    const second = await t.login(user.email, user.password);
    const sessions = (await t.request({ method: 'GET', url: '/v1/sessions', headers: auth })).json().data as Array<{ id: string; current: boolean }>;
    const otherId = sessions.find((s) => !s.current)!.id;
    await t.request({ method: 'DELETE', url: `/v1/sessions/${otherId}`, headers: auth });
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: auth, payload: { name: 'ci' } })).json();
    await t.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, headers: auth });
    await t.request({ method: 'POST', url: '/v1/users/me/password', headers: auth, payload: { current_password: user.password, new_password: 'Silver-Meadow-Lantern-5' } });
    const admin = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(admin.tokens.access_token), payload: { tier: 'pro' } });
    expect(second.access_token).toBeDefined();

    const events = await list(session.access_token);
    const types = events.map((e) => e.type);
    for (const type of ['sign_in_failed', 'sign_in', 'session_revoked', 'api_key_created', 'api_key_revoked', 'password_changed', 'account_updated_by_admin']) {
      expect(types, type).toContain(type);
    }
    const failed = events.find((e) => e.type === 'sign_in_failed')!;
    expect(failed).toMatchObject({ ip: '203.0.113.7', user_agent: 'SecurityTest/1.0' });
    expect(events.find((e) => e.type === 'sign_in' && e.ip === '203.0.113.8')).toBeDefined();
    expect(events.find((e) => e.type === 'api_key_created')!.detail).toMatchObject({ api_key_id: key.id, name: 'ci' });
    expect(events.find((e) => e.type === 'account_updated_by_admin')!.detail).toMatchObject({ admin_id: admin.id, changes: { tier: 'pro' } });
    for (const e of events) expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Newest first.
    expect(types[0]).toBe('account_updated_by_admin');
  });

  it('records refresh-token reuse', async () => {
    const user = await t.signUp();
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: user.tokens.refresh_token } });
    t.clock.advance(11_000);
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: user.tokens.refresh_token } });
    const fresh = await t.login(user.email, user.password);
    expect((await list(fresh.access_token)).map((e) => e.type)).toContain('refresh_token_reused');
  });

  it('is readable only by the account holder, and only with a login', async () => {
    const a = await t.signUp();
    const b = await t.signUp();
    const bEvents = await list(b.tokens.access_token);
    expect(bEvents.every((e) => e.type === 'sign_in')).toBe(true);
    expect(bEvents).toHaveLength(1);
    const aEvents = await list(a.tokens.access_token);
    expect(aEvents).toHaveLength(1);
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(a.tokens.access_token), payload: { name: 'k' } })).json().key as string;
    const viaKey = await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(key) });
    expect(viaKey.statusCode).toBe(403);
    expect(viaKey.json().code).toBe('session_required');
  });

  it('logs nothing for failed logins to unknown addresses (there is no account to tell)', async () => {
    const before = await t.deps.database.db.selectFrom('security_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: 'nobody-here@example.com', password: 'whatever-123' } });
    const after = await t.deps.database.db.selectFrom('security_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('records no sign_in when the session could not be started', async () => {
    const user = await t.register();
    const allow = await refuseInserts(t, 'sessions', 'user_id', user.id);
    const refused = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: user.password } });
    expect(refused.statusCode, refused.body).toBe(500);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json().code).toBe('internal_error');

    await allow();
    const session = await t.login(user.email, user.password);
    const types = (await list(session.access_token)).map((e) => e.type);
    expect(types.filter((type) => type === 'sign_in')).toHaveLength(1);
  });
});
