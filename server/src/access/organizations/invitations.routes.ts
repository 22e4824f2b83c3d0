import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertCursor } from '../../kernel/pagination.js';
import { actingOrgId, requireAuth } from '../../http/caller.js';
import type { Clock } from '../../kernel/clock.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import { presentInvitation, presentOrganization } from './organizations.presenter.js';
import { AcceptInvitationBody, InvitationParams, InvitationPreviewQuery, InviteBody, OrgParams } from './organizations.schemas.js';
import type { OrganizationsService } from './organizations.service.js';
import { actorOf, checkedId, CONFIG, TAGS } from './route-helpers.js';

export const invitationsRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationsService; clock: Clock }> = async (app, { organizations, clock }) => {
  const { invitations } = organizations;
  const tags = TAGS;
  const config = CONFIG;

  app.post('/organizations/:id/invitations', {
    // Making someone admin or owner changes who may act: a stolen session must not hand the team over.
    config: { ...config, organization: 'path', idempotent: true, stepUp: 'granting-role', role: 'admin' },
    schema: {
      tags, operationId: 'createOrganizationInvitation',
      summary: 'Invite an address by mail (admin or owner; only owners invite owners); replaces an open invitation to the same address. The link works once, for 7 days',
      params: OrgParams, body: InviteBody, response: { 201: Type.Ref('Invitation'), ...problemResponses([400, 403, 404, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    const row = await invitations.invite(actorOf(request), actingOrgId(request), request.body);
    return reply.code(201).send(presentInvitation(row, clock.now()));
  });

  app.get('/organizations/:id/invitations', {
    config: { ...config, organization: 'path', role: 'admin' },
    schema: {
      tags, operationId: 'listOrganizationInvitations', summary: 'Open invitations, newest first (admin or owner)',
      params: OrgParams, querystring: ListQuery, response: { 200: listOf(Type.Ref('Invitation')), ...problemResponses([400, 403, 404]) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('invitation', cursor);
    const page = await invitations.listPending(requireAuth(request).userId, actingOrgId(request), limit, cursor);
    return { data: page.rows.map((row) => presentInvitation(row, clock.now())), next_cursor: page.nextCursor };
  });

  app.delete('/organizations/:id/invitations/:invitation_id', {
    config: { ...config, organization: 'path', stepUp: 'never', role: 'admin' }, // withdrawing takes access away
    schema: {
      tags, operationId: 'revokeOrganizationInvitation', summary: 'Withdraw an open invitation; its link stops working (admin or owner)',
      params: InvitationParams, response: { 204: Type.Null({ description: 'Withdrawn' }), ...problemResponses([403, 404]) },
    },
  }, async (request, reply) => {
    const orgId = actingOrgId(request);
    await invitations.revoke(actorOf(request), orgId, checkedId('invitation', request.params.invitation_id, 'open invitation'));
    return reply.code(204).send(null);
  });

  app.get('/invitations/preview', {
    // Public, before anyone signs in: the link's token is the credential. Per-IP limited, like sign-in.
    config: { publicLimit: 'invitation-preview' },
    schema: {
      tags, operationId: 'previewInvitation',
      summary: "What a mailed invitation is for, before signing in: the organization's name, who invites, the role and the expiry (nothing else)",
      querystring: InvitationPreviewQuery, response: { 200: Type.Ref('InvitationPreview'), ...problemResponses([400, 429]) },
    },
  }, async (request) => invitations.preview(request.query.token));

  app.post('/invitations/accept', {
    config: { ...config, stepUp: 'never', guests: 'refused' }, // joins with a mailed link to the account's confirmed address (a guest has none)
    schema: {
      tags, operationId: 'acceptInvitation',
      summary: 'Join the organization of a mailed invitation, signed in with the confirmed address it was sent to; answers the organization with your new role',
      // No 409: inviting a member's address is refused (409 at invite) and a new invitation replaces
      // the open one, both under the organization's lock, so an open link never meets its member.
      body: AcceptInvitationBody, response: { 200: Type.Ref('Organization'), ...problemResponses([400, 403, 413, 415, 422]) },
    },
  }, async (request) => {
    const { org, role } = await invitations.accept(actorOf(request), request.body.token);
    return presentOrganization(org, role);
  });
};
