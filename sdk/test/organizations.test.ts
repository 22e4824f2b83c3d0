/**
 * Organizations through the SDK against a live `gatehouse serve`: the client's organization
 * context (the Gatehouse-Organization header) decides what the other calls see; members,
 * invitations accepted from the mailed link, roles, removal with or without the member's keys,
 * and the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, createGatehouse } from '../src/index.js';
import { confirmEmail, recordingFetch, rejection, signUp, type SignedIn } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;

beforeAll(async () => {
  // info: the log mailer writes the invitation links there (no SMTP in tests).
  server = await startLiveServer({ LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await server?.stop();
});

const names = async (gh: SignedIn['gh']) => (await gh.agents.list()).data.map((a) => a.name);

/** `owner` invites `invitee` to `orgId`; the invitee confirms the address and accepts the mailed link. */
async function join(owner: SignedIn, invitee: SignedIn, orgId: string, role: 'viewer' | 'member' | 'admin') {
  await owner.gh.organizations.invitations.create(orgId, { email: invitee.email, role });
  const me = await invitee.gh.me.get();
  if (!me.email_verified) await confirmEmail(server, invitee);
  return invitee.gh.invitations.accept(await server.mailedToken(invitee.email, 'accept-invitation'));
}

describe('the organization context', () => {
  it('sends Gatehouse-Organization with the session, which changes what agents.list() sees', async () => {
    const recorder = recordingFetch();
    const ada = await signUp(server, { fetch: recorder.fetch });
    const me = await ada.gh.me.get();
    expect(me.personal_organization_id).toMatch(/^org_/);
    expect(me.organization).toEqual({ id: me.personal_organization_id, role: 'owner' });

    const team = await ada.gh.organizations.create({ name: 'Research' });
    expect(team).toMatchObject({ name: 'Research', personal: false, role: 'owner', tier: 'free' });
    await ada.gh.agents.create({ name: 'Personal bot', model: 'gpt-4o' });

    expect(ada.gh.getOrganization()).toBeNull();
    ada.gh.setOrganization(team.id);
    expect(ada.gh.getOrganization()).toBe(team.id);
    await ada.gh.agents.create({ name: 'Shared bot', model: 'gpt-4o' });
    expect(await names(ada.gh)).toEqual(['Shared bot']);
    expect((await ada.gh.me.get()).organization).toEqual({ id: team.id, role: 'owner' });
    expect(recorder.calls.at(-1)!.headers['gatehouse-organization']).toBe(team.id);

    ada.gh.setOrganization(null);
    expect(await names(ada.gh)).toEqual(['Personal bot']);
    expect(recorder.calls.at(-1)!.headers['gatehouse-organization']).toBeUndefined();
    // A header of the caller's own wins over the client's organization.
    expect((await ada.gh.agents.list({}, { headers: { 'Gatehouse-Organization': team.id } })).data.map((a) => a.name)).toEqual(['Shared bot']);

    // The option sets it from the start (a second client on the same session).
    const scoped = createGatehouse({ baseUrl: server.base, tokenStore: ada.store, organization: team.id });
    expect(await names(scoped)).toEqual(['Shared bot']);
    expect(() => scoped.setOrganization('Research')).toThrow(TypeError);
    expect(() => createGatehouse({ baseUrl: server.base, organization: '' })).toThrow(TypeError);

    // Someone else naming it is refused: not a member.
    const eve = await signUp(server);
    eve.gh.setOrganization(team.id);
    expect(await rejection(eve.gh.agents.list())).toMatchObject({ code: 'not_a_member', status: 403 });
  });

  it('an API key acts for the organization it was created in, and gets no organization header', async () => {
    const ada = await signUp(server);
    const team = await ada.gh.organizations.create({ name: 'Keys' });
    ada.gh.setOrganization(team.id);
    await ada.gh.agents.create({ name: 'Team bot', model: 'gpt-4o' });
    const { key } = await ada.gh.apiKeys.create({ name: 'ci', scopes: ['agents:read'] });

    const recorder = recordingFetch();
    // Even with an organization set (here: the personal one), a key client sends no header, so its own applies.
    const bot = createGatehouse({ baseUrl: server.base, apiKey: key!, fetch: recorder.fetch, organization: (await ada.gh.me.get()).personal_organization_id });
    expect(await names(bot)).toEqual(['Team bot']);
    expect(recorder.calls[0]!.headers['gatehouse-organization']).toBeUndefined();
  });
});

describe('organizations', () => {
  it('lists (paginated, personal included), gets, renames and deletes; a personal organization stays', async () => {
    const ada = await signUp(server);
    const personalId = (await ada.gh.me.get()).personal_organization_id;
    const first = await ada.gh.organizations.create({ name: 'One' });
    const second = await ada.gh.organizations.create({ name: 'Two' });

    const page = await ada.gh.organizations.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    const all = await collect((cursor) => ada.gh.organizations.list({ cursor, limit: 2 }));
    expect(all.map((o) => o.id).sort()).toEqual([personalId, first.id, second.id].sort());
    expect(all.find((o) => o.id === personalId)).toMatchObject({ personal: true, role: 'owner' });

    expect(await ada.gh.organizations.update(first.id, { name: 'Uno' })).toMatchObject({ id: first.id, name: 'Uno' });
    expect(await ada.gh.organizations.get(first.id)).toMatchObject({ name: 'Uno', limits: { per_minute: expect.any(Number) } });

    await ada.gh.organizations.delete(second.id);
    expect(await rejection(ada.gh.organizations.get(second.id))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await rejection(ada.gh.organizations.delete(personalId))).toMatchObject({ code: 'conflict', status: 409 });

    // A stranger learns nothing from an id.
    const eve = await signUp(server);
    expect(await rejection(eve.gh.organizations.get(first.id))).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('members and invitations', () => {
  it('invites by email; the invitee accepts the mailed link (confirmed address, same email) and sees the shared agents', async () => {
    const ada = await signUp(server);
    const team = await ada.gh.organizations.create({ name: 'Shared' });
    ada.gh.setOrganization(team.id);
    await ada.gh.agents.create({ name: 'Shared bot', model: 'gpt-4o' });

    const bob = await signUp(server);
    const invitation = await ada.gh.organizations.invitations.create(team.id, { email: bob.email, role: 'member' });
    expect(invitation).toMatchObject({ id: expect.stringMatching(/^inv_/), organization_id: team.id, email: bob.email, role: 'member', status: 'pending' });
    expect(JSON.stringify(invitation)).not.toContain('gthi_');
    const token = await server.mailedToken(bob.email, 'accept-invitation');
    expect(token).toMatch(/^gthi_/);

    // Another account cannot use the link; nor can bob before confirming his address.
    const carol = await signUp(server);
    await confirmEmail(server, carol);
    expect(await rejection(carol.gh.invitations.accept(token))).toMatchObject({ code: 'invitation_email_mismatch', status: 403 });
    expect(await rejection(bob.gh.invitations.accept(token))).toMatchObject({ code: 'email_not_verified', status: 403 });

    await confirmEmail(server, bob);
    const joined = await bob.gh.invitations.accept(token);
    expect(joined).toMatchObject({ id: team.id, name: 'Shared', role: 'member' });
    expect(await rejection(bob.gh.invitations.accept(token))).toMatchObject({ code: 'invalid_invitation' });

    expect((await bob.gh.organizations.list()).data.map((o) => o.id)).toContain(team.id);
    expect(await names(bob.gh)).toEqual([]); // his personal organization
    bob.gh.setOrganization(team.id);
    expect(await names(bob.gh)).toEqual(['Shared bot']);

    const members = await collect((cursor) => ada.gh.organizations.members.list(team.id, { cursor, limit: 1 }));
    expect(members.map((m) => [m.email, m.role]).sort()).toEqual([[ada.email, 'owner'], [bob.email, 'member']].sort());
    // The list holds the pending ones: an accepted invitation leaves it.
    expect((await ada.gh.organizations.invitations.list(team.id)).data).toEqual([]);
  });

  it('roles decide who manages; a revoked invitation no longer works; the audit log records it all', async () => {
    const ada = await signUp(server);
    const team = await ada.gh.organizations.create({ name: 'Roles' });
    const bob = await signUp(server);
    await join(ada, bob, team.id, 'member');

    const denied = await rejection(bob.gh.organizations.invitations.create(team.id, { email: 'someone@example.com', role: 'viewer' }));
    expect(denied).toMatchObject({ code: 'insufficient_role', status: 403, problem: { required_role: 'admin' } });
    expect(await rejection(bob.gh.organizations.update(team.id, { name: 'Mine' }))).toMatchObject({ code: 'insufficient_role' });
    expect(await rejection(bob.gh.organizations.auditLog(team.id))).toMatchObject({ code: 'insufficient_role' });

    expect(await ada.gh.organizations.members.update(team.id, bob.userId, { role: 'admin' })).toMatchObject({ user_id: bob.userId, role: 'admin' });
    // Admins invite and withdraw; making owners is for owners.
    const carol = await signUp(server);
    await confirmEmail(server, carol);
    const invitation = await bob.gh.organizations.invitations.create(team.id, { email: carol.email, role: 'viewer' });
    expect(await rejection(bob.gh.organizations.members.update(team.id, bob.userId, { role: 'owner' }))).toMatchObject({ code: 'insufficient_role', problem: { required_role: 'owner' } });
    expect((await ada.gh.organizations.invitations.list(team.id)).data).toEqual([expect.objectContaining({ id: invitation.id, status: 'pending', email: carol.email })]);
    await bob.gh.organizations.invitations.revoke(team.id, invitation.id);
    expect((await ada.gh.organizations.invitations.list(team.id)).data).toEqual([]);
    expect(await rejection(carol.gh.invitations.accept(await server.mailedToken(carol.email, 'accept-invitation')))).toMatchObject({ code: 'invalid_invitation' });
    expect((await carol.gh.organizations.list()).data.map((o) => o.id)).not.toContain(team.id);

    const log = await collect((cursor) => ada.gh.organizations.auditLog(team.id, { cursor, limit: 2 }));
    expect(log.map((e) => e.action)).toEqual(expect.arrayContaining(['organization.created', 'member.invited', 'member.joined', 'member.role_changed', 'invitation.revoked']));
    expect(log.find((e) => e.action === 'member.role_changed')).toMatchObject({ actor: { user_id: ada.userId }, target_id: bob.userId });
  });

  it('removes a member revoking their API keys, or keeping them with the organization; a member leaves', async () => {
    const ada = await signUp(server);
    const team = await ada.gh.organizations.create({ name: 'Keys kept' });
    const [bob, carol, dave] = [await signUp(server), await signUp(server), await signUp(server)];
    await join(ada, bob, team.id, 'admin');
    await join(ada, carol, team.id, 'admin');
    await join(ada, dave, team.id, 'viewer');
    bob.gh.setOrganization(team.id);
    carol.gh.setOrganization(team.id);
    const bobKey = createGatehouse({ baseUrl: server.base, apiKey: (await bob.gh.apiKeys.create({ name: 'bob', scopes: ['agents:read'] })).key! });
    const carolKey = createGatehouse({ baseUrl: server.base, apiKey: (await carol.gh.apiKeys.create({ name: 'carol', scopes: ['agents:read'] })).key! });
    await bobKey.agents.list();
    await carolKey.agents.list();

    await ada.gh.organizations.members.remove(team.id, bob.userId, { apiKeys: 'revoke' });
    expect(await rejection(bobKey.agents.list())).toMatchObject({ status: 401 });
    expect(await rejection(bob.gh.agents.list())).toMatchObject({ code: 'not_a_member', status: 403 });

    await ada.gh.organizations.members.remove(team.id, carol.userId, { apiKeys: 'keep' });
    expect((await carolKey.agents.list()).data).toEqual([]);
    expect(await rejection(carol.gh.agents.list())).toMatchObject({ code: 'not_a_member', status: 403 });

    await dave.gh.organizations.members.remove(team.id, dave.userId);
    expect((await dave.gh.organizations.list()).data.map((o) => o.id)).not.toContain(team.id);
    const remaining = (await ada.gh.organizations.members.list(team.id)).data.map((m) => m.email);
    expect(remaining).toEqual([ada.email]);
    // The last owner stays.
    expect(await rejection(ada.gh.organizations.members.remove(team.id, ada.userId))).toMatchObject({ code: 'last_owner', status: 409 });
  });
});
