import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { listOf, problemResponses, StringEnum } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { TIERS } from '../../kernel/access-terms/tiers.js';
import type { AdminService } from './admin.service.js';
import { requireAuth } from '../../http/caller.js';
import { clientOf } from '../../kernel/client-info.js';
import { SecurityEventsQuery, securityEventsPage, type SecurityLog } from '../../identity/index.js';
import { AdminUsersQuery, LimitsBody, presentAdminOrganization, presentAdminUser, presentAdminUserDetail } from './admin.schemas.js';

export { AdminOrganization, AdminUser, AdminUserDetail } from './admin.schemas.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** An id that cannot name a user is a 404 like an unknown one (no query, no different answer). */
function checkedUserId(id: string): string {
  if (!isId('user', id)) throw new AppError('not_found', 'No user with this id.');
  return id;
}

export const adminRoutes: FastifyPluginAsyncTypebox<{ admin: AdminService; securityLog: SecurityLog }> = async (app, { admin, securityLog }) => {
  const tags = ['Admin'];
  const config = { auth: 'admin' as const, budget: 'exempt' as const };

  app.get('/admin/users', {
    config,
    schema: {
      tags, operationId: 'adminListUsers', summary: 'Users, newest first: everyone, or found by address, part of the address or name, tier or status',
      description: 'Filters combine. `email` is the exact address; `q` any part of the address or the name (not indexed: a rare match on a large table reads every user until the page is full, so pages stay at most 100).',
      querystring: AdminUsersQuery,
      response: { 200: listOf(Type.Ref('AdminUser')), ...problemResponses([400]) },
    },
  }, async (request) => {
    const { limit, cursor, ...filter } = request.query;
    assertCursor('user', cursor);
    const page = await admin.list(filter, limit, cursor);
    return { data: page.rows.map(presentAdminUser), next_cursor: page.nextCursor };
  });

  app.get('/admin/users/:id', {
    config,
    schema: {
      tags, operationId: 'adminGetUser', summary: 'A user, with the organizations they belong to and their role in each',
      params: IdParams, response: { 200: Type.Ref('AdminUserDetail'), ...problemResponses([404]) },
    },
  }, async (request) => {
    const { user, organizations } = await admin.detail(checkedUserId(request.params.id));
    return presentAdminUserDetail(user, organizations);
  });

  app.get('/admin/users/:id/security-events', {
    config,
    schema: {
      tags, operationId: 'adminListUserSecurityEvents', summary: 'A user\'s security log, newest first (what they see at /users/me/security-events)',
      params: IdParams, querystring: SecurityEventsQuery, response: { 200: listOf(Type.Ref('SecurityEvent')), ...problemResponses([400, 404]) },
    },
  }, async (request) => {
    // An unknown user is a 404, not an empty log that reads like a quiet account.
    const user = await admin.user(checkedUserId(request.params.id));
    return securityEventsPage(securityLog, user.id, request.query);
  });

  app.patch('/admin/users/:id', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'adminUpdateUser', summary: 'Change a user\'s tier, custom limits or disabled flag',
      description: 'Custom `limits` are for the enterprise tier only (400 otherwise); moving an account to another tier drops its custom limits, and `limits: null` returns it to the tier\'s defaults. `disabled: true` refuses the account\'s tokens and keys at once on every instance, revokes its sessions and closes its live streams; `false` lets it sign in again (its sessions stay revoked). An administrator cannot disable their own account (409 `conflict`).',
      params: IdParams,
      body: Type.Object({
        tier: Type.Optional(StringEnum(TIERS)),
        limits: Type.Optional(Type.Union([LimitsBody, Type.Null()])),
        disabled: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Type.Ref('AdminUser'), ...problemResponses([400, 404, 409, 413, 415]) },
    },
  }, async (request) => {
    const actor = { adminId: requireAuth(request).userId, client: clientOf(request) };
    return presentAdminUser(await admin.update(checkedUserId(request.params.id), request.body, actor));
  });

  const checkedOrgId = (id: string) => {
    if (!isId('organization', id)) throw new AppError('not_found', 'No organization with this id.');
    return id;
  };

  app.get('/admin/organizations/:id', {
    config,
    schema: { tags, operationId: 'adminGetOrganization', summary: 'An organization\'s tier and limits', params: IdParams, response: { 200: Type.Ref('AdminOrganization'), ...problemResponses([404]) } },
  }, async (request) => presentAdminOrganization(await admin.getOrganization(checkedOrgId(request.params.id))));

  app.patch('/admin/organizations/:id', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'adminUpdateOrganization', summary: 'Change an organization\'s tier or custom limits',
      description: 'The budget every member and key of the organization spends from. Custom `limits` are for the enterprise tier only (400 otherwise); moving to another tier drops them, and `limits: null` returns to the tier\'s defaults.',
      params: IdParams,
      body: Type.Object({
        tier: Type.Optional(StringEnum(TIERS)),
        limits: Type.Optional(Type.Union([LimitsBody, Type.Null()])),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Type.Ref('AdminOrganization'), ...problemResponses([400, 404, 413, 415]) },
    },
  }, async (request) => {
    const updated = await admin.updateOrganization(checkedOrgId(request.params.id), request.body);
    await securityLog.record(requireAuth(request).userId, 'organization_updated_by_admin', clientOf(request), { organization_id: updated.id, changes: request.body });
    return presentAdminOrganization(updated);
  });
};
