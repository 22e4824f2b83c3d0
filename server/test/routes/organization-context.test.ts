import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * Issue 21: which organization a request acts for (the Gatehouse-Organization header, an API
 * key's own), and what a member's role lets their tokens and keys do there.
 */
describe(`acting for an organization (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // No grace period: the deletion below is the purge itself (the grace is account-deletion.test.ts's).
    t = await createTestApp({ env: { ACCOUNT_DELETION_GRACE_DAYS: '0' } });
  });
  afterAll(() => t.close());

  interface Person { id: string; token: string; personal: string; password: string }
  const person = async (): Promise<Person> => {
    const user = await t.signUp();
    const me = (await t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(user.tokens.access_token) })).json() as { personal_organization_id: string };
    return { id: user.id, token: user.tokens.access_token, personal: me.personal_organization_id, password: user.password };
  };
  const call = (credential: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, orgId?: string, payload?: object) =>
    t.request({ method, url, headers: { ...bearer(credential), ...(orgId ? { 'gatehouse-organization': orgId } : {}) }, ...(payload ? { payload } : {}) });
  const expectProblem = (res: { statusCode: number; json(): { code: string } }, status: number, code: string) => {
    expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
    expect(res.json().code).toBe(code);
  };
  /** An organization of `owner`'s with each of `members` in it with their role (joined in the database: invitations have their own tests). */
  const team = async (owner: Person, members: Array<[Person, 'admin' | 'member' | 'viewer']>) => {
    const created = await call(owner.token, 'POST', '/v1/organizations', undefined, { name: 'Team' });
    expect(created.statusCode, created.body).toBe(201);
    const orgId = (created.json() as { id: string }).id;
    const now = new Date().toISOString();
    for (const [who, role] of members) await t.deps.database.db.insertInto('memberships').values({ org_id: orgId, user_id: who.id, role, created_at: now }).execute();
    return orgId;
  };
  const agentIn = async (credential: string, orgId?: string) => {
    const res = await call(credential, 'POST', '/v1/agents', orgId, { name: 'Shared', model: 'gpt-4o' });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: string }).id;
  };
  const keyIn = async (credential: string, orgId: string, scopes?: string[]) => {
    const res = await call(credential, 'POST', '/v1/api-keys', orgId, { name: 'runtime', ...(scopes ? { scopes } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; key: string; scopes: string[] };
  };

  it("acts for the personal organization by default and for the header's when named; another organization's agent is 404", async () => {
    const owner = await person();
    const member = await person();
    const orgId = await team(owner, [[member, 'member']]);
    const shared = await agentIn(owner.token, orgId);
    const personal = await agentIn(member.token);

    const inTeam = (await call(member.token, 'GET', '/v1/agents', orgId)).json() as { data: Array<{ id: string }> };
    expect(inTeam.data.map((a) => a.id)).toEqual([shared]);
    const own = (await call(member.token, 'GET', '/v1/agents')).json() as { data: Array<{ id: string }> };
    expect(own.data.map((a) => a.id)).toEqual([personal]);
    expectProblem(await call(member.token, 'GET', `/v1/agents/${shared}`), 404, 'not_found');
    expectProblem(await call(owner.token, 'GET', `/v1/agents/${personal}`, orgId), 404, 'not_found');
    const me = (await call(member.token, 'GET', '/v1/users/me', orgId)).json() as { organization: { id: string; role: string }; personal_organization_id: string };
    expect(me.organization).toEqual({ id: orgId, role: 'member' });
    expect(me.personal_organization_id).toBe(member.personal);
  });

  it('refuses an organization the caller is not a member of (403 not_a_member) and a malformed header (400)', async () => {
    const owner = await person();
    const stranger = await person();
    const orgId = await team(owner, []);
    expectProblem(await call(stranger.token, 'GET', '/v1/agents', orgId), 403, 'not_a_member');
    expectProblem(await call(stranger.token, 'GET', '/v1/agents', owner.personal), 403, 'not_a_member');
    expectProblem(await call(stranger.token, 'GET', '/v1/agents', 'org_nope'), 400, 'invalid_request');
    expectProblem(await call(stranger.token, 'GET', '/v1/agents', "org_' or 1=1 --"), 400, 'invalid_request');
  });

  it("never locks anyone out of their own account with a stale header: account management ignores it", async () => {
    const owner = await person();
    const former = await person();
    const orgId = await team(owner, []);
    // `former` sends a header of an organization they do not (or no longer) belong to.
    expectProblem(await call(former.token, 'GET', '/v1/api-keys', orgId), 403, 'not_a_member');
    expect((await call(former.token, 'GET', '/v1/sessions', orgId)).statusCode).toBe(200);
    expect((await call(former.token, 'GET', '/v1/users/me/security-events', orgId)).statusCode).toBe(200);
    expect((await call(former.token, 'GET', '/v1/organizations', orgId)).statusCode).toBe(200);
    expect((await call(former.token, 'POST', '/v1/auth/logout', orgId)).statusCode).toBe(204);
  });

  it('lets an API key act only for its own organization', async () => {
    const owner = await person();
    const orgId = await team(owner, []);
    const shared = await agentIn(owner.token, orgId);
    const key = await keyIn(owner.token, orgId);
    const listed = (await call(key.key, 'GET', '/v1/agents')).json() as { data: Array<{ id: string }> };
    expect(listed.data.map((a) => a.id)).toEqual([shared]);
    expect((await call(key.key, 'GET', '/v1/agents', orgId)).statusCode).toBe(200);
    expectProblem(await call(key.key, 'GET', '/v1/agents', owner.personal), 403, 'not_a_member');
  });

  it('answers a viewer 403 insufficient_role creating a key or an agent, and lets them read', async () => {
    const owner = await person();
    const viewer = await person();
    const orgId = await team(owner, [[viewer, 'viewer']]);
    await agentIn(owner.token, orgId);
    const key = await call(viewer.token, 'POST', '/v1/api-keys', orgId, { name: 'mine' });
    expectProblem(key, 403, 'insufficient_role');
    expect(key.json().required_role).toBe('member');
    const agent = await call(viewer.token, 'POST', '/v1/agents', orgId, { name: 'No', model: 'gpt-4o' });
    expectProblem(agent, 403, 'insufficient_role');
    expect(agent.json().required_role).toBe('member');
    expect((await call(viewer.token, 'GET', '/v1/agents', orgId)).json().data).toHaveLength(1);
    expect((await call(viewer.token, 'GET', '/v1/api-keys', orgId)).statusCode).toBe(200);
  });

  it("caps a member's keys at their role: no webhooks:write by default or on request, and no webhook writes by token", async () => {
    const owner = await person();
    const member = await person();
    const orgId = await team(owner, [[member, 'member']]);
    const key = await keyIn(member.token, orgId);
    expect(key.scopes).not.toContain('webhooks:write');
    expect(key.scopes).toContain('agents:write');
    const asked = await call(member.token, 'POST', '/v1/api-keys', orgId, { name: 'hooks', scopes: ['webhooks:write'] });
    expectProblem(asked, 403, 'insufficient_role');
    expect(asked.json().required_role).toBe('admin');
    expectProblem(await call(member.token, 'POST', '/v1/webhooks', orgId, { url: 'https://example.com/hook', events: ['*'] }), 403, 'insufficient_role');
  });

  it("narrows a member's keys at once when they are demoted", async () => {
    const owner = await person();
    const member = await person();
    const orgId = await team(owner, [[member, 'member']]);
    const key = await keyIn(member.token, orgId);
    await agentIn(key.key);
    const demoted = await call(owner.token, 'PATCH', `/v1/organizations/${orgId}/members/${member.id}`, undefined, { role: 'viewer' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expectProblem(await call(key.key, 'POST', '/v1/agents', undefined, { name: 'No', model: 'gpt-4o' }), 403, 'insufficient_role');
    expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(200);
  });

  it("lets members manage their own keys and admins every key of the organization", async () => {
    const owner = await person();
    const admin = await person();
    const member = await person();
    const other = await person();
    const orgId = await team(owner, [[admin, 'admin'], [member, 'member'], [other, 'member']]);
    const mine = await keyIn(member.token, orgId);
    const theirs = await keyIn(other.token, orgId);
    expectProblem(await call(member.token, 'DELETE', `/v1/api-keys/${theirs.id}`, orgId), 403, 'insufficient_role');
    expectProblem(await call(member.token, 'POST', `/v1/api-keys/${theirs.id}/roll`, orgId, {}), 403, 'insufficient_role');
    expect((await call(member.token, 'PATCH', `/v1/api-keys/${mine.id}`, orgId, { name: 'renamed' })).statusCode).toBe(200);
    expect((await call(admin.token, 'DELETE', `/v1/api-keys/${theirs.id}`, orgId)).statusCode).toBe(204);
    expect((await call(member.token, 'DELETE', `/v1/api-keys/${mine.id}`, orgId)).statusCode).toBe(204);
    // A key of the organization is not a key of anyone's personal organization.
    expectProblem(await call(owner.token, 'GET', `/v1/api-keys/${mine.id}`), 404, 'not_found');
    const audit = (await call(owner.token, 'GET', `/v1/organizations/${orgId}/audit-log`)).json() as { data: Array<{ action: string; actor: { user_id: string }; target_id: string }> };
    expect(audit.data.filter((e) => e.action.startsWith('api_key.')).map((e) => [e.action, e.actor.user_id, e.target_id])).toEqual([
      ['api_key.revoked', member.id, mine.id],
      ['api_key.revoked', admin.id, theirs.id],
      ['api_key.updated', member.id, mine.id],
      ['api_key.created', other.id, theirs.id],
      ['api_key.created', member.id, mine.id],
    ]);
  });

  it("spends every member's requests from the organization's budget, shown by GET /v1/usage", async () => {
    const owner = await person();
    const member = await person();
    const orgId = await team(owner, [[member, 'member']]);
    for (const who of [owner, member, owner]) expect((await call(who.token, 'GET', '/v1/agents', orgId)).statusCode).toBe(200);
    const usage = (await call(member.token, 'GET', '/v1/usage', orgId)).json() as { day: { used: number } };
    expect(usage.day.used).toBe(3);
    const personal = (await call(member.token, 'GET', '/v1/usage')).json() as { day: { used: number } };
    expect(personal.day.used).toBe(0);
  });

  it('deletes an account with its personal organization and those it is alone in, and refuses while it is the last owner of a team', async () => {
    const owner = await person();
    const member = await person();
    const teamId = await team(owner, [[member, 'member']]);
    const shared = await agentIn(owner.token, teamId);
    const solo = await call(owner.token, 'POST', '/v1/organizations', undefined, { name: 'Solo' });
    const soloId = (solo.json() as { id: string }).id;
    await agentIn(owner.token, soloId);
    const refused = await call(owner.token, 'DELETE', '/v1/users/me', undefined, { password: owner.password });
    expectProblem(refused, 409, 'last_owner');
    expect(refused.json().organization_id).toBe(teamId);

    expect((await call(owner.token, 'PATCH', `/v1/organizations/${teamId}/members/${member.id}`, undefined, { role: 'owner' })).statusCode).toBe(200);
    const deleted = await call(owner.token, 'DELETE', '/v1/users/me', undefined, { password: owner.password });
    expect(deleted.statusCode).toBe(202);
    expect(deleted.json().deletion_due_at).toBe(new Date(t.clock.now()).toISOString());
    const orgs = await t.deps.database.db.selectFrom('organizations').select('id').where('id', 'in', [teamId, soloId, owner.personal]).execute();
    expect(orgs.map((o) => o.id)).toEqual([teamId]);
    // The team goes on with what it held.
    expect((await call(member.token, 'GET', `/v1/agents/${shared}`, teamId)).statusCode).toBe(200);
    const members = (await call(member.token, 'GET', `/v1/organizations/${teamId}/members`)).json() as { data: Array<{ user_id: string; role: string }> };
    expect(members.data.map((m) => [m.user_id, m.role])).toEqual([[member.id, 'owner']]);
  });
});
