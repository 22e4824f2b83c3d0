import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertCursor } from '../../kernel/pagination.js';
import { actingOrgId, requireAuth } from '../../http/caller.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import type { Clock } from '../../kernel/clock.js';
import { presentAuditEvent } from './audit-log.js';
import { invitationsRoutes } from './invitations.routes.js';
import { membersRoutes } from './members.routes.js';
import { presentOrganization } from './organizations.presenter.js';
import { OrganizationNameBody, OrgParams } from './organizations.schemas.js';
import type { OrganizationsService } from './organizations.service.js';
import { actorOf, CONFIG, TAGS } from './route-helpers.js';

export { AuditEvent, Invitation, InvitationPreview, Member, Organization } from './organizations.schemas.js';

export const organizationsRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationsService; clock: Clock }> = async (app, opts) => {
  const { organizations } = opts;
  const tags = TAGS;
  const config = CONFIG;

  app.post('/organizations', {
    config: { ...config, idempotent: true, locationHeader: true, stepUp: 'never', guests: 'refused' }, // a team is for accounts with an address
    schema: {
      tags, operationId: 'createOrganization', summary: 'Create an organization; you are its owner (at most 100 organizations per account)',
      body: OrganizationNameBody, response: { 201: Type.Ref('Organization'), ...problemResponses([400, 413, 415, 422]) },
    },
  }, async (request, reply) => {
    const { org, role } = await organizations.create(actorOf(request), request.body.name);
    return reply.code(201).header('Location', `/v1/organizations/${org.id}`).send(presentOrganization(org, role));
  });

  app.get('/organizations', {
    config,
    schema: { tags, operationId: 'listOrganizations', summary: 'The organizations you belong to, with your role in each, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('Organization')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('organization', cursor);
    const page = await organizations.list(requireAuth(request).userId, limit, cursor);
    return { data: page.rows.map((row) => presentOrganization(row, row.role)), next_cursor: page.nextCursor };
  });

  app.get('/organizations/:id', {
    config: { ...config, organization: 'path' },
    schema: { tags, operationId: 'getOrganization', summary: 'One organization you belong to (any role)', params: OrgParams, response: { 200: Type.Ref('Organization'), ...problemResponses([404]) } },
  }, async (request) => {
    const { org, role } = await organizations.get(requireAuth(request).userId, actingOrgId(request));
    return presentOrganization(org, role);
  });

  app.patch('/organizations/:id', {
    config: { ...config, organization: 'path', stepUp: 'never', role: 'admin' },
    schema: {
      tags, operationId: 'updateOrganization', summary: 'Rename the organization (admin or owner)',
      params: OrgParams, body: OrganizationNameBody, response: { 200: Type.Ref('Organization'), ...problemResponses([400, 403, 404, 413, 415]) },
    },
  }, async (request) => {
    const { org, role } = await organizations.rename(actorOf(request), actingOrgId(request), request.body.name);
    return presentOrganization(org, role);
  });

  app.delete('/organizations/:id', {
    config: { ...config, organization: 'path', stepUp: 'always', role: 'owner' },
    schema: {
      tags, operationId: 'deleteOrganization', summary: 'Delete the organization with everything it owns; its API keys stop working at once (owner; not a personal organization)',
      params: OrgParams, response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses([403, 404, 409]) },
    },
  }, async (request, reply) => {
    await organizations.delete(actorOf(request), actingOrgId(request));
    return reply.code(204).send(null);
  });

  app.get('/organizations/:id/audit-log', {
    config: { ...config, organization: 'path', role: 'admin' },
    schema: {
      tags, operationId: 'listOrganizationAuditLog', summary: 'Who did what in the organization, from where, newest first (admin or owner)',
      params: OrgParams, querystring: ListQuery, response: { 200: listOf(Type.Ref('AuditEvent')), ...problemResponses([400, 403, 404]) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('auditEvent', cursor);
    const page = await organizations.auditLog(requireAuth(request).userId, actingOrgId(request), limit, cursor);
    return { data: page.rows.map(presentAuditEvent), next_cursor: page.nextCursor };
  });

  await app.register(membersRoutes, opts);
  await app.register(invitationsRoutes, opts);
};
