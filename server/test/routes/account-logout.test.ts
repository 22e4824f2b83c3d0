import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp, type TokenPair } from '../harness.js';
import { openSse } from '../sse-client.js';

/**
 * POST /v1/auth/logout with a scope: this session (the default), every other one ("sign out
 * everywhere else"), or all of them. Over real HTTP, so the revoked sessions' live streams are
 * seen to close.
 */
describe(`logout scopes (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  const logout = (token: string, payload?: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(token), ...(payload === undefined ? {} : { payload }) });
  const me = (token: string) => t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) }).then((r) => r.statusCode);
  const refresh = (pair: TokenPair) => t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: pair.refresh_token } }).then((r) => r.statusCode);
  const securityLog = async (token: string) =>
    (await t.request({ method: 'GET', url: '/v1/users/me/security-events', headers: bearer(token) })).json().data as Array<{ type: string; detail: Record<string, unknown> }>;

  it('`others` ends every other session at once, with their streams; this one and other accounts go on', async () => {
    const user = await t.signUp();
    const [second, third] = [await t.login(user.email, user.password), await t.login(user.email, user.password)];
    const stranger = await t.signUp();
    const watched = await openSse(`${base}/v1/events/stream`, bearer(second.access_token));
    expect(watched.status).toBe(200);

    const revokedAt = Date.now();
    const res = await logout(user.tokens.access_token, { scope: 'others' });
    expect(res.statusCode, res.body).toBe(204);
    expect((await watched.ended) - revokedAt).toBeLessThan(1_000);
    expect(watched.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_revoked' } });

    expect([await me(second.access_token), await me(third.access_token)]).toEqual([401, 401]);
    expect([await refresh(second), await refresh(third)]).toEqual([401, 401]);
    expect(await me(user.tokens.access_token)).toBe(200);
    expect(await refresh(user.tokens)).toBe(200);
    expect(await me(stranger.tokens.access_token)).toBe(200);

    const [entry] = await securityLog(user.tokens.access_token);
    expect(entry).toMatchObject({ type: 'sessions_revoked', detail: { scope: 'others', count: 2 } });
    // One UPDATE, one session.revoked event naming both.
    const events = await t.deps.database.db.selectFrom('events').select('data').where('type', '=', 'session.revoked').where('org_id', '=', await t.personalOrgId(user.id)).execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data)).toEqual({ ids: expect.arrayContaining([expect.stringMatching(/^ses_/)]), reason: 'logout_others' });
    expect(JSON.parse(events[0]!.data).ids).toHaveLength(2);

    // Nothing else to end: still 204, a count of 0.
    expect((await logout(user.tokens.access_token, { scope: 'others' })).statusCode).toBe(204);
    expect((await securityLog(user.tokens.access_token))[0]).toMatchObject({ type: 'sessions_revoked', detail: { count: 0 } });
  });

  it('`all` ends every session, this one too', async () => {
    const user = await t.signUp();
    const second = await t.login(user.email, user.password);
    expect((await logout(user.tokens.access_token, { scope: 'all' })).statusCode).toBe(204);
    expect([await me(user.tokens.access_token), await me(second.access_token)]).toEqual([401, 401]);
    expect([await refresh(user.tokens), await refresh(second)]).toEqual([401, 401]);
    const fresh = await t.login(user.email, user.password);
    expect((await securityLog(fresh.access_token)).find((e) => e.type === 'sessions_revoked')).toMatchObject({ detail: { scope: 'all', count: 2 } });
  });

  it('without a body, with `{}` or `current`, ends only this session; an unknown scope is 400', async () => {
    const user = await t.signUp();
    for (const body of [undefined, {}, { scope: 'current' }]) {
      const current = await t.login(user.email, user.password);
      expect((await logout(current.access_token, body)).statusCode).toBe(204);
      expect(await me(current.access_token)).toBe(401);
      expect(await me(user.tokens.access_token)).toBe(200);
    }
    expect((await securityLog(user.tokens.access_token)).filter((e) => e.type === 'sign_out')).toHaveLength(3);
    for (const body of [{ scope: 'everyone' }, { scope: 'others', extra: 1 }, { scope: 3 }]) {
      const res = await logout(user.tokens.access_token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    expect(await me(user.tokens.access_token)).toBe(200);
  });

  it('an API key cannot sign anyone out', async () => {
    const user = await t.signUp();
    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name: 'k' } })).json().key as string;
    const res = await logout(key, { scope: 'all' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('session_required');
    expect(await me(user.tokens.access_token)).toBe(200);
  });
});
