import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * Issue 31: organizations are free to make, so free ones must not multiply the free budget. Every
 * free-tier organization draws from its owner's personal organization's budget: one free budget
 * per person, however many organizations they make.
 */
describe(`one free budget per person (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inOrg = (token: string, orgId: string) => t.request({ method: 'GET', url: '/v1/agents', headers: { ...bearer(token), 'gatehouse-organization': orgId } });
  const team = async (token: string, name: string) => {
    const res = await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(token), payload: { name } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  it('lets three free organizations of one person, and their personal one, share one 100 a minute', async () => {
    const ada = await t.signUp();
    const token = ada.tokens.access_token;
    const orgs = [await t.personalOrgId(ada.id), await team(token, 'One'), await team(token, 'Two'), await team(token, 'Three')];
    let admitted = 0;
    for (let i = 0; i < 160; i++) if ((await inOrg(token, orgs[i % orgs.length]!)).statusCode === 200) admitted++;
    // With Redis the limiter runs on real time: a second or two of leak admits a few more.
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(105);
    const refused = await inOrg(token, orgs[3]!);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', window: 'minute' });

    // Someone else's budget is their own: a person with none spent is admitted.
    const bob = await t.signUp();
    expect((await inOrg(bob.tokens.access_token, await team(bob.tokens.access_token, 'Bob')) ).statusCode).toBe(200);
  });

  it('keeps a paid organization on its own budget', async () => {
    const cy = await t.signUp();
    const token = cy.tokens.access_token;
    const paid = await team(token, 'Paid');
    await t.deps.database.db.updateTable('organizations').set({ tier: 'standard' }).where('id', '=', paid).execute();
    await t.deps.organizationCache.changed(paid);
    const personal = await t.personalOrgId(cy.id);
    for (let i = 0; i < 110; i++) await inOrg(token, personal);
    expect((await inOrg(token, personal)).statusCode).toBe(429);
    expect((await inOrg(token, paid)).statusCode).toBe(200);
  });
});
