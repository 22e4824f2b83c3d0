import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, type TestApp } from '../harness.js';

/** The admin's view of users: search and filters, one user with their organizations, their security log. */
describe(`admin users (${dialect})`, () => {
  let t: TestApp;
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    const signedUp = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', signedUp.id).execute();
    await t.deps.accounts.changed(signedUp.id);
    admin = bearer(signedUp.tokens.access_token);
  });
  afterAll(() => t.close());

  const list = async (query: Record<string, string>) => {
    const res = await t.request({ method: 'GET', url: `/v1/admin/users?${new URLSearchParams(query)}`, headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: Array<{ id: string; email: string; name: string; tier: string; disabled: boolean }>; next_cursor: string | null };
  };
  const ids = async (query: Record<string, string>) => (await list(query)).data.map((u) => u.id);

  it('finds part of an address or a name in any letter case; % _ and \\ match only themselves', async () => {
    const tag = randomBytes(4).toString('hex');
    const ada = await t.register({ email: `ada.${tag}@example.com`, name: 'Ada Lovelace' });
    const grace = await t.register({ email: `grace.${tag}@example.com`, name: 'Grace Hopper' });
    const literal = await t.register({ email: `a_b%c.${tag}@example.com`, name: 'Literal' });
    const lookalike = await t.register({ email: `axbyc.${tag}@example.com`, name: 'Lookalike' });
    const slash = await t.register({ email: `s1.${tag}@example.com`, name: `back\\slash ${tag}` });
    const plain = await t.register({ email: `s2.${tag}@example.com`, name: `backslash ${tag}` });

    // Newest first, like every list.
    expect(await ids({ q: tag })).toEqual([plain.id, slash.id, lookalike.id, literal.id, grace.id, ada.id]);
    expect(await ids({ q: `ADA.${tag.toUpperCase()}` })).toEqual([ada.id]);
    expect(await ids({ q: 'lOVELACE' })).toEqual([ada.id]);
    expect(await ids({ q: `  Grace Hop  ` })).toEqual([grace.id]); // the name, with its space; outer blanks trimmed
    // As wildcards, `_` and `%` would also match axbyc, and `\s` would match "backslash".
    expect(await ids({ q: 'a_b%c' })).toEqual([literal.id]);
    expect(await ids({ q: 'k\\s' })).toEqual([slash.id]);
    expect(await ids({ q: '%' })).toEqual([literal.id]);
    expect(await ids({ q: `${tag}-nobody` })).toEqual([]);
    // The exact-address filter still matches whole addresses only.
    expect(await ids({ email: `ADA.${tag}@EXAMPLE.COM` })).toEqual([ada.id]);
    expect(await ids({ email: `ada.${tag}` })).toEqual([]);
  });

  it('refuses an administrator disabling their own account, and changes nothing', async () => {
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: admin })).json() as { id: string };
    const res = await t.request({ method: 'PATCH', url: `/v1/admin/users/${me.id}`, headers: admin, payload: { disabled: true } });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ code: 'conflict' });
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: admin })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `/v1/admin/users/${me.id}`, headers: admin })).json()).toMatchObject({ disabled: false });
    // Their own tier is theirs to change.
    expect((await t.request({ method: 'PATCH', url: `/v1/admin/users/${me.id}`, headers: admin, payload: { tier: 'pro', disabled: false } })).statusCode).toBe(200);
  });

  it('filters by tier and by disabled, combined with q', async () => {
    const tag = randomBytes(4).toString('hex');
    const [free, pro, off] = [await t.register({ name: `Free ${tag}` }), await t.register({ name: `Pro ${tag}` }), await t.register({ name: `Off ${tag}` })];
    expect((await t.request({ method: 'PATCH', url: `/v1/admin/users/${pro.id}`, headers: admin, payload: { tier: 'pro' } })).statusCode).toBe(200);
    expect((await t.request({ method: 'PATCH', url: `/v1/admin/users/${off.id}`, headers: admin, payload: { disabled: true } })).statusCode).toBe(200);

    expect(await ids({ q: tag, tier: 'pro' })).toEqual([pro.id]);
    expect(await ids({ q: tag, tier: 'free' })).toEqual([off.id, free.id]);
    expect(await ids({ q: tag, disabled: 'true' })).toEqual([off.id]);
    expect(await ids({ q: tag, disabled: 'false' })).toEqual([pro.id, free.id]);
    expect(await ids({ q: tag, tier: 'pro', disabled: 'true' })).toEqual([]);
    const row = (await list({ q: tag, disabled: 'true' })).data[0];
    expect(row).toMatchObject({ id: off.id, disabled: true, tier: 'free' });
  });

  it('lists everyone without a filter, page by page, newest first', async () => {
    for (let i = 0; i < 3; i++) await t.register();
    const everyone = (await t.deps.database.db.selectFrom('users').select('id').orderBy('id', 'desc').execute()).map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list({ limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((u) => u.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(everyone);
  });

  it('refuses a bad filter with 400 validation_failed', async () => {
    for (const query of ['q=', `q=${'x'.repeat(101)}`, 'disabled=maybe', 'tier=gold', 'limit=101', 'limit=0', 'cursor=nope', 'role=admin', `email=${'x'.repeat(255)}`]) {
      const res = await t.request({ method: 'GET', url: `/v1/admin/users?${query}`, headers: admin });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code, query).toBe('validation_failed');
    }
    expect((await t.request({ method: 'GET', url: `/v1/admin/users?q=${'x'.repeat(100)}`, headers: admin })).statusCode).toBe(200);
  });

  it('shows one user with every organization they belong to and their role there', async () => {
    const user = await t.signUp({ name: 'Member Of Many' });
    const team = await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(user.tokens.access_token), payload: { name: 'Own team' } });
    expect(team.statusCode, team.body).toBe(201);
    const other = await t.signUp();
    const elsewhere = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(other.tokens.access_token), payload: { name: 'Their team' } })).json();
    // A viewer there, as an accepted invitation would make them.
    await t.deps.database.db.insertInto('memberships').values({ org_id: elsewhere.id, user_id: user.id, role: 'viewer', created_at: new Date().toISOString() }).execute();

    const res = await t.request({ method: 'GET', url: `/v1/admin/users/${user.id}`, headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ id: user.id, email: user.email, name: 'Member Of Many', tier: 'free', disabled: false, role: 'user', custom_limits: null });
    expect(body.organizations).toEqual([
      { id: elsewhere.id, name: 'Their team', role: 'viewer', personal: false },
      { id: team.json().id, name: 'Own team', role: 'owner', personal: false },
      { id: await t.personalOrgId(user.id), name: 'Member Of Many', role: 'owner', personal: true },
    ]);
    expect(res.body).not.toContain('password');
  });

  it('answers 404 for an unknown or malformed user id, 403 to anyone but an admin', async () => {
    for (const url of ['/v1/admin/users/usr_01m80h15sxexf8nyy2raa7xwfh', '/v1/admin/users/nonsense', '/v1/admin/users/usr_01m80h15sxexf8nyy2raa7xwfh/security-events', '/v1/admin/users/org_01m80h15sxexf8nyy2raa7xwfh/security-events']) {
      const res = await t.request({ method: 'GET', url, headers: admin });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const user = await t.signUp();
    for (const url of [`/v1/admin/users/${user.id}`, `/v1/admin/users/${user.id}/security-events`]) {
      expect((await t.request({ method: 'GET', url, headers: bearer(user.tokens.access_token) })).json().code).toBe('forbidden');
    }
  });

  it("shows a user's security log as they see it, with the same type filter and pages", async () => {
    const user = await t.signUp();
    await t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: '203.0.113.9', payload: { username: user.email, password: 'not-the-password' } });
    await t.login(user.email, STRONG_PASSWORD);
    await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: admin, payload: { tier: 'hobby' } });
    const own = (query: string) => t.request({ method: 'GET', url: `/v1/users/me/security-events${query}`, headers: bearer(user.tokens.access_token) });
    const viaAdmin = (query: string) => t.request({ method: 'GET', url: `/v1/admin/users/${user.id}/security-events${query}`, headers: admin });

    for (const query of ['', '?type=sign_in', '?type=sign_in_failed&limit=1', '?limit=2']) {
      const [mine, theirs] = [await own(query), await viaAdmin(query)];
      expect(theirs.statusCode, query).toBe(200);
      expect(theirs.json(), query).toEqual(mine.json());
    }
    const all = (await viaAdmin('')).json().data as Array<{ type: string; ip: string | null; detail: Record<string, unknown> }>;
    expect(all.map((e) => e.type)).toEqual(['account_updated_by_admin', 'sign_in', 'sign_in_failed', 'sign_in']);
    expect(all[0]!.detail).toMatchObject({ changes: { tier: 'hobby' } });
    expect(all[2]).toMatchObject({ ip: '203.0.113.9' });
    const signIns = (await viaAdmin('?type=sign_in')).json();
    expect(signIns.data.map((e: { type: string }) => e.type)).toEqual(['sign_in', 'sign_in']);
    // Paged: the second page continues after the first, and the last says there is no more.
    const first = (await viaAdmin('?limit=3')).json();
    const rest = (await viaAdmin(`?limit=3&cursor=${first.next_cursor}`)).json();
    expect([...first.data, ...rest.data]).toEqual(all);
    expect(rest.next_cursor).toBeNull();

    for (const query of ['?type=everything', '?cursor=nope', '?limit=500', '?user_id=x']) {
      const res = await viaAdmin(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('records who disabled and enabled an account in its security log; enabled, it signs in again', async () => {
    const user = await t.signUp();
    const patch = (disabled: boolean) => t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: admin, payload: { disabled } });
    expect((await patch(true)).json()).toMatchObject({ id: user.id, disabled: true });
    expect((await t.request({ method: 'POST', url: '/v1/auth/login', payload: { username: user.email, password: STRONG_PASSWORD } })).json().code).toBe('account_disabled');
    expect((await patch(false)).json()).toMatchObject({ id: user.id, disabled: false });
    const back = await t.login(user.email, STRONG_PASSWORD);
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(back.access_token) })).statusCode).toBe(200);
    // The session from before the disable stays revoked.
    expect((await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).statusCode).toBe(401);

    const log = (await t.request({ method: 'GET', url: `/v1/admin/users/${user.id}/security-events?type=account_updated_by_admin`, headers: admin })).json().data;
    expect(log.map((e: { detail: unknown }) => e.detail)).toEqual([
      { admin_id: expect.stringMatching(/^usr_/), changes: { disabled: false } },
      { admin_id: expect.stringMatching(/^usr_/), changes: { disabled: true } },
    ]);
  });
});
