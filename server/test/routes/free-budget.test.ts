import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * Issue 31: organizations are free to make, so free ones must not multiply the free budget. The
 * free teams a person owns share one free budget (`free-teams:<owner>`), kept apart from their
 * personal organization's: a team's members cannot spend the owner's own budget, nor see its use.
 */
describe(`one free budget for a person's free teams (${dialect})`, () => {
  let t: TestApp;
  let serviceKey: string;
  beforeAll(async () => {
    t = await createTestApp();
    const admin = await t.signUp();
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    const created = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(admin.tokens.access_token), payload: { name: 'runtime', scopes: ['credentials:verify'] } });
    expect(created.statusCode, created.body).toBe(201);
    serviceKey = created.json().key;
  });
  afterAll(() => t.close());

  const inOrg = (token: string, orgId: string) => t.request({ method: 'GET', url: '/v1/agents', headers: { ...bearer(token), 'gatehouse-organization': orgId } });
  const usage = async (token: string, orgId: string) => {
    const res = await t.request({ method: 'GET', url: '/v1/usage', headers: { ...bearer(token), 'gatehouse-organization': orgId } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const team = async (token: string, name: string) => {
    const res = await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(token), payload: { name } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  /** Spends `n` requests spread over `orgs`; returns how many were admitted. */
  const spend = async (token: string, orgs: string[], n: number) => {
    let admitted = 0;
    for (let i = 0; i < n; i++) if ((await inOrg(token, orgs[i % orgs.length]!)).statusCode === 200) admitted++;
    return admitted;
  };

  it('lets three free teams of one person share one 100 a minute, and keeps the personal budget apart', async () => {
    const ada = await t.signUp();
    const token = ada.tokens.access_token;
    const personal = await t.personalOrgId(ada.id);
    const teams = [await team(token, 'One'), await team(token, 'Two'), await team(token, 'Three')];
    const admitted = await spend(token, teams, 150);
    // With Redis the limiter runs on real time: a second or two of leak admits a few more.
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(105);
    const refused = await inOrg(token, teams[2]!);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', window: 'minute' });

    // The personal organization's budget is untouched: its own traffic is admitted, and its usage shows none of the teams'.
    expect((await usage(token, personal)).minute.used).toBe(0);
    expect((await inOrg(token, personal)).statusCode).toBe(200);
    // Every team reports the shared budget.
    for (const id of teams) expect((await usage(token, id)).minute.remaining).toBeLessThanOrEqual(5);

    // Someone else's budget is their own: a person with none spent is admitted.
    const bob = await t.signUp();
    expect((await inOrg(bob.tokens.access_token, await team(bob.tokens.access_token, 'Bob'))).statusCode).toBe(200);
  });

  it('never lets a member of a free team spend or see the owner\'s paid personal budget', async () => {
    const cy = await t.signUp();
    const token = cy.tokens.access_token;
    const personal = await t.personalOrgId(cy.id);
    await t.deps.database.db.updateTable('organizations').set({ tier: 'standard' }).where('id', '=', personal).execute();
    await t.deps.organizationCache.changed(personal);
    const free = await team(token, 'Free');
    // The owner's paid traffic: 150 requests, more than a free budget holds, all admitted.
    expect(await spend(token, [personal], 150)).toBe(150);

    // The team's budget is a free one of its own: none of the 150 shows on it.
    const seen = await usage(token, free);
    expect(seen).toMatchObject({ tier: 'free', limits: { per_minute: 100 } });
    expect(seen.minute.used).toBe(0);
    // A key of the team, verified, reports the same budget the team's usage does.
    const key = await t.request({ method: 'POST', url: '/v1/api-keys', headers: { ...bearer(token), 'gatehouse-organization': free }, payload: { name: 'team' } });
    expect(key.statusCode, key.body).toBe(201);
    const verified = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(serviceKey), payload: { credential: key.json().key, count: false } });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().ratelimit.minute).toMatchObject({ limit: 100, remaining: 100 });

    // Exhausting the team's budget leaves the personal organization's paid budget unspent by it.
    expect(await spend(token, [free], 110)).toBeLessThanOrEqual(105);
    expect((await inOrg(token, free)).statusCode).toBe(429);
    const after = await usage(token, personal);
    expect(after.minute.used).toBeLessThanOrEqual(155);
    expect((await inOrg(token, personal)).statusCode).toBe(200);
  });

  it('keeps a paid team on its own budget', async () => {
    const di = await t.signUp();
    const token = di.tokens.access_token;
    const paid = await team(token, 'Paid');
    const free = await team(token, 'Free');
    await t.deps.database.db.updateTable('organizations').set({ tier: 'standard' }).where('id', '=', paid).execute();
    await t.deps.organizationCache.changed(paid);
    await spend(token, [free], 110);
    expect((await inOrg(token, free)).statusCode).toBe(429);
    expect((await inOrg(token, paid)).statusCode).toBe(200);
  });
});
