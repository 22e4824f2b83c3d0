import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertCursor } from '../../kernel/pagination.js';
import { actingOrgId, requireAuth } from '../../http/caller.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import { ChangeRoleBody, MemberParams, OrgParams, RemoveMemberQuery } from './organizations.schemas.js';
import type { OrganizationsService } from './organizations.service.js';
import { actorOf, checkedId, CONFIG, TAGS } from './route-helpers.js';

export const membersRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationsService }> = async (app, { organizations }) => {
  const { members } = organizations;
  const tags = TAGS;
  const config = CONFIG;
  const memberId = (id: string) => checkedId('user', id, 'member');

  app.get('/organizations/:id/members', {
    config: { ...config, organization: 'path' },
    schema: {
      tags, operationId: 'listOrganizationMembers', summary: 'Members of the organization and their roles, newest account first (any role)',
      params: OrgParams, querystring: ListQuery, response: { 200: listOf(Type.Ref('Member')), ...problemResponses([400, 404]) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('user', cursor);
    const page = await members.list(requireAuth(request).userId, actingOrgId(request), limit, cursor);
    return { data: page.rows, next_cursor: page.nextCursor };
  });

  app.patch('/organizations/:id/members/:user_id', {
    // Promoting, demoting and handing over ownership change who may act.
    config: { ...config, organization: 'path', stepUp: 'always', role: 'admin' },
    schema: {
      tags, operationId: 'updateOrganizationMember',
      summary: "Change a member's role (admin or owner; only an owner makes owners or changes an owner's role; the last owner stays)",
      params: MemberParams, body: ChangeRoleBody, response: { 200: Type.Ref('Member'), ...problemResponses([400, 403, 404, 409, 413, 415]) },
    },
  }, async (request) => {
    const orgId = actingOrgId(request);
    return members.changeRole(actorOf(request), orgId, memberId(request.params.user_id), request.body.role);
  });

  app.delete('/organizations/:id/members/:user_id', {
    // Removing someone changes who may act; leaving gives up only one's own access (any role may leave).
    config: { ...config, organization: 'path', stepUp: 'removing-another', role: 'admin' },
    schema: {
      tags, operationId: 'removeOrganizationMember',
      summary: 'Remove a member (admin or owner; an owner needs an owner), or leave (your own user id); their API keys here are revoked, or kept with api_keys=keep',
      params: MemberParams, querystring: RemoveMemberQuery, response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses([400, 403, 404, 409]) },
    },
  }, async (request, reply) => {
    const orgId = actingOrgId(request);
    await members.remove(actorOf(request), orgId, memberId(request.params.user_id), request.query.api_keys ?? 'revoke');
    return reply.code(204).send(null);
  });
};
