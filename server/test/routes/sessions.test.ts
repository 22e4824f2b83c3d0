import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoTime } from '../../src/kernel/clock.js';
import { newId } from '../../src/kernel/ids.js';
import { createMemoryRevocationList } from '../../src/kernel/revocation.js';
import { createSessionsRepository } from '../../src/identity/sessions/sessions.repository.js';
import { createSessionsService } from '../../src/identity/sessions/sessions.service.js';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, type TestApp, type TokenPair } from '../harness.js';
import { refuseInserts } from '../refuse-inserts.js';

const NEW_PASSWORD = 'Amber-Falcon-Lantern-77';

function sidOf(accessToken: string): string {
  const part = accessToken.split('.')[1];
  if (part === undefined) throw new Error('not a JWT');
  return (JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { sid: string }).sid;
}

function me(t: TestApp, token: string) {
  return t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) });
}

function refresh(t: TestApp, refreshToken: string) {
  return t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: refreshToken } });
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code });
}

async function expectWorks(t: TestApp, accessToken: string) {
  const res = await me(t, accessToken);
  expect(res.statusCode, res.body).toBe(200);
}

async function expectRefused(t: TestApp, accessToken: string) {
  const res = await me(t, accessToken);
  expectProblem(res, 401, 'invalid_token');
  expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
}

describe(`refresh tokens (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('rotates the refresh token on every use and issues a working access token', async () => {
    const { id, tokens } = await t.signUp();
    const res = await refresh(t, tokens.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const next = res.json() as TokenPair;
    expect(next).toMatchObject({ token_type: 'bearer', expires_in: 900, scope: tokens.scope });
    expect(next.refresh_token).toMatch(/^gthr_/);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(sidOf(next.access_token)).toBe(sidOf(tokens.access_token)); // same session
    await expectWorks(t, tokens.access_token); // the old access token lives until it expires
    const meRes = await me(t, next.access_token);
    expect(meRes.statusCode).toBe(200);
    expect(meRes.json().id).toBe(id);
    // The rotated token chain continues.
    expect((await refresh(t, next.refresh_token)).statusCode).toBe(200);
  });

  it('accepts an OAuth2 refresh_token grant form post', async () => {
    const { tokens } = await t.signUp();
    const res = await t.request({
      method: 'POST', url: '/v1/auth/refresh',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const next = res.json() as TokenPair;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    await expectWorks(t, next.access_token);
  });

  it('refuses unknown and malformed refresh tokens with 401 invalid_token', async () => {
    const { tokens } = await t.signUp();
    for (const token of ['gthr_' + 'A'.repeat(43), 'nope', tokens.access_token.slice(0, 200)]) {
      expectProblem(await refresh(t, token), 401, 'invalid_token');
    }
  });

  it('gives a sibling pair to a reuse within the 10 s grace, and revokes the session on a later reuse', async () => {
    const { tokens: first } = await t.signUp();
    const bystander = await t.signUp();

    const r1 = await refresh(t, first.refresh_token);
    expect(r1.statusCode).toBe(200);
    const second = r1.json() as TokenPair;

    t.clock.advance(5_000);
    const r2 = await refresh(t, first.refresh_token); // a second tab racing the first
    expect(r2.statusCode, r2.body).toBe(200);
    const sibling = r2.json() as TokenPair;
    expect(sibling.refresh_token).not.toBe(second.refresh_token);
    await expectWorks(t, sibling.access_token);

    t.clock.advance(6_000); // 11 s after the rotation
    const stolen = await refresh(t, first.refresh_token);
    expectProblem(stolen, 401, 'invalid_token');

    // The whole session is gone: every access token of it, every refresh token of it.
    await expectRefused(t, first.access_token);
    await expectRefused(t, second.access_token);
    await expectRefused(t, sibling.access_token);
    expectProblem(await refresh(t, second.refresh_token), 401, 'invalid_token');
    expectProblem(await refresh(t, sibling.refresh_token), 401, 'invalid_token');
    const row = await t.deps.database.db.selectFrom('sessions').select(['revoked_at', 'revoked_reason']).where('id', '=', sidOf(first.access_token)).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expect(row.revoked_reason).toBe('refresh_token_reused');

    // Other accounts are untouched.
    await expectWorks(t, bystander.tokens.access_token);
    expect((await refresh(t, bystander.tokens.refresh_token)).statusCode).toBe(200);
  });
});

describe(`refresh token idle expiry (${dialect})`, () => {
  let t: TestApp;
  const DAY = 86_400_000;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('slides the 30-day idle expiry on each refresh and answers token_expired once idle too long', async () => {
    const user = await t.signUp();
    const { tokens } = user;
    t.clock.advance(29 * DAY);
    const a = await refresh(t, tokens.refresh_token);
    expect(a.statusCode, a.body).toBe(200);
    t.clock.advance(29 * DAY); // 58 days after login, 29 after the last use
    const b = await refresh(t, (a.json() as TokenPair).refresh_token);
    expect(b.statusCode, b.body).toBe(200);

    t.clock.advance(t.config.refreshTokenTtl * 1000 + 1_000);
    expectProblem(await refresh(t, (b.json() as TokenPair).refresh_token), 401, 'token_expired');
    // The expired session no longer shows up among the active ones; a new login is listed alone.
    const fresh = await t.login(user.email, STRONG_PASSWORD);
    const list = await t.request({ method: 'GET', url: '/v1/sessions', headers: bearer(fresh.access_token) });
    expect((list.json() as { data: { id: string }[] }).data.map((s) => s.id)).toEqual([sidOf(fresh.access_token)]);
    expect((await refresh(t, fresh.refresh_token)).statusCode).toBe(200);
  });
});

describe(`logout and sessions (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('logout revokes the current session at once: access token and refresh token', async () => {
    const user = await t.signUp();
    const other = await t.login(user.email, user.password);
    await expectWorks(t, user.tokens.access_token);
    const res = await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.tokens.access_token) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    await expectRefused(t, user.tokens.access_token);
    expectProblem(await refresh(t, user.tokens.refresh_token), 401, 'invalid_token');
    expectProblem(await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.tokens.access_token) }), 401, 'invalid_token');
    // Only that session: the user's other login still works.
    await expectWorks(t, other.access_token);
  });

  it('starts a session and its refresh token together or not at all', async () => {
    const user = await t.register();
    const sessionsOf = () => t.deps.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    // The refresh token's insert fails (the fake clock stands still, so its created_at is known):
    // the session row written just before it must not stay behind.
    const allow = await refuseInserts(t, 'refresh_tokens', 'created_at', isoTime(t.clock.now()));
    try {
      const refused = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: user.password } });
      expect(refused.statusCode, refused.body).toBe(500);
      expect(await sessionsOf()).toEqual([]);
    } finally {
      await allow();
    }
    const tokens = await t.login(user.email, user.password);
    expect(await sessionsOf()).toHaveLength(1);
    await expectWorks(t, tokens.access_token);
    expect((await refresh(t, tokens.refresh_token)).statusCode).toBe(200);
  });

  it('lists active sessions newest first, flags the current one and pages with limit and cursor', async () => {
    const user = await t.signUp();
    const second = await t.login(user.email, user.password, { 'user-agent': 'second-device/1.0' });
    const third = await t.login(user.email, user.password);
    const gone = await t.login(user.email, user.password);
    await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(gone.access_token) });
    const stranger = await t.signUp();

    const res = await t.request({ method: 'GET', url: '/v1/sessions', headers: bearer(second.access_token) });
    expect(res.statusCode).toBe(200);
    const { data, next_cursor } = res.json() as { data: { id: string; current: boolean; user_agent: string | null }[]; next_cursor: string | null };
    const expected = [third, second, user.tokens].map((p) => sidOf(p.access_token));
    expect(data.map((s) => s.id)).toEqual(expected); // newest first, revoked and foreign sessions absent
    expect(next_cursor).toBeNull();
    expect(data.filter((s) => s.current).map((s) => s.id)).toEqual([sidOf(second.access_token)]);
    expect(data.find((s) => s.current)?.user_agent).toBe('second-device/1.0');
    expect(data).not.toContainEqual(expect.objectContaining({ id: sidOf(stranger.tokens.access_token) }));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/sessions?limit=1${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await t.request({ method: 'GET', url, headers: bearer(second.access_token) });
      expect(page.statusCode, page.body).toBe(200);
      const body = page.json() as { data: { id: string }[]; next_cursor: string | null };
      expect(body.data).toHaveLength(1);
      seen.push(body.data[0]!.id);
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);

    expectProblem(await t.request({ method: 'GET', url: '/v1/sessions?cursor=bogus', headers: bearer(second.access_token) }), 400, 'validation_failed');
    expectProblem(await t.request({ method: 'GET', url: '/v1/sessions' }), 401, 'authentication_required');
  });

  it('revokes another of my sessions at once, and answers 404 for foreign, unknown and malformed ids', async () => {
    const user = await t.signUp();
    const phone = await t.login(user.email, user.password);
    const stranger = await t.signUp();
    const mine = user.tokens.access_token;

    const del = await t.request({ method: 'DELETE', url: `/v1/sessions/${sidOf(phone.access_token)}`, headers: bearer(mine) });
    expect(del.statusCode, del.body).toBe(204);
    await expectRefused(t, phone.access_token);
    expectProblem(await refresh(t, phone.refresh_token), 401, 'invalid_token');
    await expectWorks(t, mine);
    // Already revoked: no longer an active session.
    expectProblem(await t.request({ method: 'DELETE', url: `/v1/sessions/${sidOf(phone.access_token)}`, headers: bearer(mine) }), 404, 'not_found');

    // Another account's session: 404, and it keeps working.
    const foreign = sidOf(stranger.tokens.access_token);
    expectProblem(await t.request({ method: 'DELETE', url: `/v1/sessions/${foreign}`, headers: bearer(mine) }), 404, 'not_found');
    await expectWorks(t, stranger.tokens.access_token);

    for (const id of [newId('session'), 'ses_123', 'not-an-id', newId('user')]) {
      expectProblem(await t.request({ method: 'DELETE', url: `/v1/sessions/${id}`, headers: bearer(mine) }), 404, 'not_found');
    }
    await expectWorks(t, mine);
  });
});

describe(`password change and account deletion (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('changes the password: other sessions end, the current one continues, only the new password logs in', async () => {
    const user = await t.signUp();
    const laptop = await t.login(user.email, user.password);
    const stranger = await t.signUp();
    const url = '/v1/users/me/password';

    const wrong = await t.request({ method: 'POST', url, headers: bearer(user.tokens.access_token), payload: { current_password: 'Wrong-Password-123', new_password: NEW_PASSWORD } });
    expectProblem(wrong, 400, 'validation_failed');
    expect(wrong.json().errors).toEqual([expect.objectContaining({ field: '/current_password' })]);
    await expectWorks(t, laptop.access_token); // a failed attempt revokes nothing

    const ok = await t.request({ method: 'POST', url, headers: bearer(user.tokens.access_token), payload: { current_password: user.password, new_password: NEW_PASSWORD } });
    expect(ok.statusCode, ok.body).toBe(204);

    await expectRefused(t, laptop.access_token);
    expectProblem(await refresh(t, laptop.refresh_token), 401, 'invalid_token');
    await expectWorks(t, user.tokens.access_token);
    expect((await refresh(t, user.tokens.refresh_token)).statusCode).toBe(200);
    await expectWorks(t, stranger.tokens.access_token);

    const oldLogin = await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: user.password } });
    expectProblem(oldLogin, 401, 'invalid_credentials');
    const newLogin = await t.login(user.email, NEW_PASSWORD);
    await expectWorks(t, newLogin.access_token);
  });

  it('renames the account with PATCH /v1/users/me', async () => {
    const user = await t.signUp({ name: 'Before' });
    const res = await t.request({ method: 'PATCH', url: '/v1/users/me', headers: bearer(user.tokens.access_token), payload: { name: '  Grace Hopper ' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, name: 'Grace Hopper' });
    expect((await me(t, user.tokens.access_token)).json().name).toBe('Grace Hopper');
  });

  it('deletes the account with its password: tokens die at once, no rows remain after the grace period', async () => {
    const user = await t.signUp();
    const second = await t.login(user.email, user.password);
    await refresh(t, second.refresh_token); // a rotated refresh token row too
    const stranger = await t.signUp();
    const { db } = t.deps.database;
    const sessionIds = (await db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).map((r) => r.id);
    expect(sessionIds).toHaveLength(2);
    expect(await db.selectFrom('refresh_tokens').select('token_hash').where('session_id', 'in', sessionIds).execute()).toHaveLength(3);

    const wrong = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(user.tokens.access_token), payload: { password: 'Wrong-Password-123' } });
    expectProblem(wrong, 400, 'validation_failed');
    await expectWorks(t, user.tokens.access_token);

    const res = await t.request({ method: 'DELETE', url: '/v1/users/me', headers: bearer(user.tokens.access_token), payload: { password: user.password } });
    expect(res.statusCode, res.body).toBe(202);

    await expectRefused(t, user.tokens.access_token);
    await expectRefused(t, second.access_token);
    expectProblem(await refresh(t, user.tokens.refresh_token), 401, 'invalid_token');
    await expectWorks(t, stranger.tokens.access_token);

    t.clock.advance(31 * 86_400_000); // past the grace period (30 days by default), then the sweep
    await t.deps.accountPurge.purgeOnce();
    expectProblem(await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: user.password } }), 401, 'invalid_credentials');
    expect(await db.selectFrom('users').select('id').where('id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('refresh_tokens').select('token_hash').where('session_id', 'in', sessionIds).execute()).toEqual([]);

    // Nobody else's data went with it.
    expect(await db.selectFrom('users').select('id').where('id', '=', stranger.id).execute()).toHaveLength(1);
    expect(await db.selectFrom('sessions').select('id').where('user_id', '=', stranger.id).execute()).toHaveLength(1);
  });
});

describe(`revocations after a restart (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reloads recently revoked sessions from the database into a fresh revocation list', async () => {
    const user = await t.signUp();
    const active = await t.login(user.email, user.password);
    expect((await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.tokens.access_token) })).statusCode).toBe(204);
    const loggedOut = sidOf(user.tokens.access_token);
    const stillActive = sidOf(active.access_token);

    // A new process: empty in-memory list, same database.
    const revocations = createMemoryRevocationList(() => t.clock.now());
    try {
      const sessions = createSessionsService({
        sessions: createSessionsRepository(t.deps.database.db, t.deps.database.dialect),
        accessTokens: t.deps.accessTokens,
        revocations,
        clock: t.clock,
        accessTokenTtl: t.config.accessTokenTtl,
        refreshTokenTtl: t.config.refreshTokenTtl,
      });
      expect(revocations.isRevoked(loggedOut)).toBe(false);
      await sessions.loadRecentRevocations();
      expect(revocations.isRevoked(loggedOut)).toBe(true);
      expect(revocations.isRevoked(stillActive)).toBe(false);

      // It stays revoked while the session's last access token can still be alive.
      t.clock.advance(t.config.accessTokenTtl * 1000);
      expect(revocations.isRevoked(loggedOut)).toBe(true);
    } finally {
      await revocations.close();
    }
  });
});
