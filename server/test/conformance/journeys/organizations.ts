import { describe, expect, it } from 'vitest';
import { tokenFromMail } from '../../smtp-inbox.js';
import type { Answer } from '../contract-client.js';
import { confirmEmail, signUp, type Actor, type GetContext } from '../context.js';

/** The header an access token names the organization it acts for with (docs/guides/teams.md). */
const ORG = 'gatehouse-organization';

/**
 * Teams (issue 21): a team's life through the proxy. An owner creates an organization (once per
 * Idempotency-Key), invites by mail, the invitee accepts with the mailed link once their address is
 * confirmed, acts for the organization with the Gatehouse-Organization header, is promoted, meets
 * the role rules (403 insufficient_role, 409 last_owner), is removed with their key handed over;
 * the audit log tells it all; an administrator changes the organization's tier; the owner deletes it.
 */
export function organizationsJourney(ctx: GetContext): void {
  describe('organizations', () => {
    it("walks a team's life: create, invite, accept, roles, remove, audit log, admin, delete", async () => {
      const { stack } = ctx();
      const owner = await signUp(ctx().api, 'org-owner');
      const guest = await signUp(ctx().api, 'org-guest');
      const intruder = await signUp(ctx().api, 'org-intruder');
      const as = (actor: Actor, orgId?: string) => ({ token: actor.access, ...(orgId ? { headers: { [ORG]: orgId } } : {}) });
      const expectProblem = (answer: Answer, code: string, extra: Record<string, unknown> = {}) => expect(answer.body).toMatchObject({ code, ...extra });

      // Created once per Idempotency-Key; the creator is its owner.
      const create = { token: owner.access, headers: { 'idempotency-key': 'team-1' }, json: { name: 'Acme' } };
      const created = await owner.api.call('createOrganization', create, 201);
      const org = created.body.id as string;
      expect(created.body).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Acme', personal: false, role: 'owner', tier: 'free' });
      expect(created.headers.get('location')).toBe(`/v1/organizations/${org}`);
      const replay = await owner.api.call('createOrganization', create, 201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(org);
      expectProblem(await owner.api.call('createOrganization', { ...create, json: { name: 'Other' } }, 422), 'idempotency_key_reused');
      expectProblem(await owner.api.call('createOrganization', { token: owner.access, json: { name: '   ' } }, 400), 'validation_failed');

      // Newest first: the team, then the personal organization made with the account.
      const me = (await owner.api.call('getMe', as(owner), 200)).body;
      const page1 = await owner.api.call('listOrganizations', { token: owner.access, query: { limit: 1 } }, 200);
      expect(page1.body.data.map((o: { id: string }) => o.id)).toEqual([org]);
      const page2 = await owner.api.call('listOrganizations', { token: owner.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);
      expect(page2.body.data).toEqual([expect.objectContaining({ id: me.personal_organization_id, personal: true, role: 'owner' })]);
      expectProblem(await owner.api.call('listOrganizations', { token: owner.access, query: { cursor: 'nope' } }, 400), 'validation_failed');
      expect((await owner.api.call('getOrganization', { token: owner.access, path: { id: org } }, 200)).body).toMatchObject({ id: org, role: 'owner' });
      expect((await owner.api.call('updateOrganization', { token: owner.access, path: { id: org }, json: { name: 'Acme Ltd' } }, 200)).body.name).toBe('Acme Ltd');
      expect((await owner.api.call('getMe', as(owner, org), 200)).body.organization).toEqual({ id: org, role: 'owner' });

      // An invitation by mail, once per Idempotency-Key.
      const invite = { token: owner.access, path: { id: org }, headers: { 'idempotency-key': 'invite-1' }, json: { email: guest.email, role: 'member' } };
      const invitation = await owner.api.call('createOrganizationInvitation', invite, 201);
      expect(invitation.body).toMatchObject({ id: expect.stringMatching(/^inv_/), organization_id: org, email: guest.email, role: 'member', invited_by: owner.id, status: 'pending' });
      const again = await owner.api.call('createOrganizationInvitation', invite, 201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(invitation.body.id);
      expectProblem(await owner.api.call('createOrganizationInvitation', { ...invite, json: { email: guest.email, role: 'viewer' } }, 422), 'idempotency_key_reused');
      const pending = await owner.api.call('listOrganizationInvitations', { token: owner.access, path: { id: org }, query: { limit: 5 } }, 200);
      expect(pending.body.data.map((i: { id: string }) => i.id)).toEqual([invitation.body.id]);
      const token = tokenFromMail(await stack.inbox.waitFor(guest.email, /invited to join/), 'accept-invitation');
      expect(token).toMatch(/^gthi_/);
      // Before anyone signs in, the link names the organization, who invites and the role: nothing else.
      const preview = await guest.api.call('previewInvitation', { query: { token } }, 200);
      expect(preview.body).toEqual({ organization_name: 'Acme Ltd', inviter_name: expect.any(String), role: 'member', expires_at: expect.any(String) });
      expectProblem(await guest.api.call('previewInvitation', { query: { token: `gthi_${'A'.repeat(43)}` } }, 400), 'invalid_invitation');

      // Only its address may accept, once confirmed; the link works once.
      expectProblem(await intruder.api.call('acceptInvitation', { token: intruder.access, json: { token } }, 403), 'invitation_email_mismatch');
      expectProblem(await guest.api.call('acceptInvitation', { token: guest.access, json: { token } }, 403), 'email_not_verified');
      await confirmEmail(stack, guest);
      const joined = await guest.api.call('acceptInvitation', { token: guest.access, json: { token } }, 200);
      expect(joined.body).toMatchObject({ id: org, name: 'Acme Ltd', role: 'member', personal: false });
      expectProblem(await guest.api.call('acceptInvitation', { token: guest.access, json: { token } }, 400), 'invalid_invitation');
      expectProblem(await guest.api.call('acceptInvitation', { token: guest.access, json: { token: `gthi_${'A'.repeat(43)}` } }, 400), 'invalid_invitation');
      expectProblem(await owner.api.call('createOrganizationInvitation', { token: owner.access, path: { id: org }, json: { email: guest.email, role: 'admin' } }, 409), 'conflict');

      // The member acts for the organization with the header; who is not a member gets 403, a malformed id 400.
      expect((await guest.api.call('getMe', as(guest, org), 200)).body.organization).toEqual({ id: org, role: 'member' });
      const agent = await guest.api.call('createAgent', { ...as(guest, org), json: { name: 'Shared', model: 'gpt-4o' } }, 201);
      expect((await owner.api.call('getAgent', { ...as(owner, org), path: { id: agent.body.id } }, 200)).body.id).toBe(agent.body.id);
      await owner.api.call('getAgent', { ...as(owner), path: { id: agent.body.id } }, 404);
      expectProblem(await intruder.api.call('listAgents', as(intruder, org), 403), 'not_a_member');
      expectProblem(await guest.api.call('listAgents', { token: guest.access, headers: { [ORG]: 'acme' } }, 400), 'invalid_request');
      const guestKey = (await guest.api.call('createApiKey', { ...as(guest, org), json: { name: 'runtime', scopes: ['agents:read'] } }, 201)).body;

      // Members list, page by page (newest account first).
      const members = await owner.api.call('listOrganizationMembers', { token: owner.access, path: { id: org }, query: { limit: 1 } }, 200);
      expect(members.body.data).toEqual([expect.objectContaining({ user_id: guest.id, email: guest.email, role: 'member' })]);
      const rest = await owner.api.call('listOrganizationMembers', { token: owner.access, path: { id: org }, query: { limit: 1, cursor: members.body.next_cursor } }, 200);
      expect(rest.body.data).toEqual([expect.objectContaining({ user_id: owner.id, role: 'owner' })]);
      expectProblem(await guest.api.call('listOrganizationMembers', { token: guest.access, path: { id: org }, query: { cursor: 'nope' } }, 400), 'validation_failed');

      // A member's role is too weak to manage the team: 403 insufficient_role naming the role needed.
      const needsAdmin = { required_role: 'admin', role: 'member' };
      expectProblem(await guest.api.call('createOrganizationInvitation', { token: guest.access, path: { id: org }, json: { email: intruder.email, role: 'viewer' } }, 403), 'insufficient_role', needsAdmin);
      expectProblem(await guest.api.call('listOrganizationInvitations', { token: guest.access, path: { id: org } }, 403), 'insufficient_role', needsAdmin);
      expectProblem(await guest.api.call('updateOrganization', { token: guest.access, path: { id: org }, json: { name: 'Mine' } }, 403), 'insufficient_role', needsAdmin);
      expectProblem(await guest.api.call('listOrganizationAuditLog', { token: guest.access, path: { id: org } }, 403), 'insufficient_role', needsAdmin);
      expectProblem(await guest.api.call('updateOrganizationMember', { token: guest.access, path: { id: org, user_id: guest.id }, json: { role: 'admin' } }, 403), 'insufficient_role', needsAdmin);
      expectProblem(await guest.api.call('removeOrganizationMember', { token: guest.access, path: { id: org, user_id: owner.id } }, 403), 'insufficient_role', needsAdmin);

      // Promoted to admin; an organization always keeps an owner (409 last_owner), and only owners delete it.
      const promoted = await owner.api.call('updateOrganizationMember', { token: owner.access, path: { id: org, user_id: guest.id }, json: { role: 'admin' } }, 200);
      expect(promoted.body).toMatchObject({ user_id: guest.id, role: 'admin' });
      expectProblem(await guest.api.call('deleteOrganization', { token: guest.access, path: { id: org } }, 403), 'insufficient_role', { required_role: 'owner', role: 'admin' });
      expectProblem(await guest.api.call('updateOrganizationMember', { token: guest.access, path: { id: org, user_id: owner.id }, json: { role: 'admin' } }, 409), 'last_owner');
      expectProblem(await owner.api.call('updateOrganizationMember', { token: owner.access, path: { id: org, user_id: owner.id }, json: { role: 'member' } }, 409), 'last_owner');
      expectProblem(await owner.api.call('removeOrganizationMember', { token: owner.access, path: { id: org, user_id: owner.id } }, 409), 'last_owner');
      expectProblem(await owner.api.call('updateOrganizationMember', { token: owner.access, path: { id: org, user_id: intruder.id }, json: { role: 'viewer' } }, 404), 'not_found');

      // The admin invites and withdraws; a withdrawn invitation is gone.
      const withdrawn = await guest.api.call('createOrganizationInvitation', { token: guest.access, path: { id: org }, json: { email: intruder.email, role: 'viewer' } }, 201);
      await guest.api.call('revokeOrganizationInvitation', { token: guest.access, path: { id: org, invitation_id: withdrawn.body.id } }, 204);
      expectProblem(await guest.api.call('revokeOrganizationInvitation', { token: guest.access, path: { id: org, invitation_id: withdrawn.body.id } }, 404), 'not_found');
      expect((await owner.api.call('listOrganizationInvitations', { token: owner.access, path: { id: org } }, 200)).body.data).toEqual([]);
      const withdrawnToken = tokenFromMail(await stack.inbox.waitFor(intruder.email, /invited to join/), 'accept-invitation');
      expectProblem(await intruder.api.call('acceptInvitation', { token: intruder.access, json: { token: withdrawnToken } }, 400), 'invalid_invitation');

      // Removed, their key handed to the owner (api_keys=keep); leaving cannot hand keys to anyone (400).
      expectProblem(await guest.api.call('removeOrganizationMember', { token: guest.access, path: { id: org, user_id: guest.id }, query: { api_keys: 'keep' } }, 400), 'validation_failed');
      await owner.api.call('removeOrganizationMember', { token: owner.access, path: { id: org, user_id: guest.id }, query: { api_keys: 'keep' } }, 204);
      expectProblem(await owner.api.call('removeOrganizationMember', { token: owner.access, path: { id: org, user_id: guest.id } }, 404), 'not_found');
      await guest.api.call('getOrganization', { token: guest.access, path: { id: org } }, 404);
      expectProblem(await guest.api.call('listAgents', as(guest, org), 403), 'not_a_member');
      const kept = await owner.api.call('listApiKeys', as(owner, org), 200);
      expect(kept.body.data.map((k: { id: string }) => k.id)).toEqual([guestKey.id]);
      await owner.api.call('listAgents', { token: guestKey.key }, 200);
      expectProblem(await owner.api.call('listAgents', { token: guestKey.key, headers: { [ORG]: me.personal_organization_id } }, 403), 'not_a_member');

      // The audit log, newest first, page by page: who did what, from where.
      const log = await owner.api.call('listOrganizationAuditLog', { token: owner.access, path: { id: org }, query: { limit: 1 } }, 200);
      expect(log.body.data[0]).toMatchObject({ action: 'member.removed', actor: { user_id: owner.id, key_id: null }, target_id: guest.id, ip: owner.api.ip });
      const older = await owner.api.call('listOrganizationAuditLog', { token: owner.access, path: { id: org }, query: { limit: 100, cursor: log.body.next_cursor } }, 200);
      const actions = older.body.data.map((e: { action: string }) => e.action);
      for (const action of ['organization.created', 'organization.updated', 'member.invited', 'member.joined', 'member.role_changed', 'invitation.revoked', 'api_key.created']) {
        expect(actions).toContain(action);
      }
      expect(actions.at(-1)).toBe('organization.created');
      expectProblem(await owner.api.call('listOrganizationAuditLog', { token: owner.access, path: { id: org }, query: { cursor: 'nope' } }, 400), 'validation_failed');

      // An administrator sets the organization's tier: the budget every member and key spends from.
      const admin = await ctx().admin();
      const seen = await admin.api.call('adminGetOrganization', { token: admin.access, path: { id: org } }, 200);
      expect(seen.body).toMatchObject({ id: org, name: 'Acme Ltd', personal: false, tier: 'free', custom_limits: null });
      const pro = await admin.api.call('adminUpdateOrganization', { token: admin.access, path: { id: org }, json: { tier: 'pro' } }, 200);
      expect(pro.body).toMatchObject({ tier: 'pro', custom_limits: null });
      expectProblem(await admin.api.call('adminUpdateOrganization', { token: admin.access, path: { id: org }, json: { limits: { per_minute: 5, per_day: 50 } } }, 400), 'validation_failed');
      const custom = await admin.api.call('adminUpdateOrganization', { token: admin.access, path: { id: org }, json: { tier: 'enterprise', limits: { per_minute: 5000, per_day: 500_000 } } }, 200);
      expect(custom.body.limits).toMatchObject({ per_minute: 5000, per_day: 500_000 });
      expect((await owner.api.call('getOrganization', { token: owner.access, path: { id: org } }, 200)).body).toMatchObject({ tier: 'enterprise', limits: { per_minute: 5000, per_day: 500_000 } });
      await admin.api.callInvalid('adminUpdateOrganization', { token: admin.access, path: { id: org }, json: {} }, 400);

      // A personal organization goes only with its account; the owner deletes the team, and its keys stop working.
      expectProblem(await owner.api.call('deleteOrganization', { token: owner.access, path: { id: me.personal_organization_id } }, 409), 'conflict');
      await guest.api.call('deleteOrganization', { token: guest.access, path: { id: org } }, 404);
      await owner.api.call('deleteOrganization', { token: owner.access, path: { id: org } }, 204);
      await owner.api.call('getOrganization', { token: owner.access, path: { id: org } }, 404);
      await owner.api.call('listAgents', { token: guestKey.key }, 401);
      const left = await owner.api.call('listOrganizations', { token: owner.access }, 200);
      expect(left.body.data.map((o: { id: string }) => o.id)).toEqual([me.personal_organization_id]);
    });
  });
}
