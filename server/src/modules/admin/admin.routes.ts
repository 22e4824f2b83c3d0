import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.js';
import { assertCursor } from '../../core/pagination.js';
import { listOf, PageLimit, problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { isId } from '../../core/ids.js';
import { limitsFor, streamCapFor, TIERS } from '../../core/tiers.js';
import type { UserWithPlan } from '../users/users.repository.js';
import type { OrganizationRow } from '../organizations/organizations.repository.js';
import type { AdminService } from './admin.service.js';
import { requireAuth } from '../../http/authenticate.js';
import { clientOf } from '../../core/client-info.js';
import type { SecurityLog } from '../security-log/security-log.js';

// The columns are `integer` (32-bit on PostgreSQL): a larger limit overflowed there (a 500, found by fuzzing).
const LIMIT_MAX = 2_147_483_647;
const LimitsBody = Type.Object(
  {
    per_minute: Type.Integer({ minimum: 1, maximum: LIMIT_MAX }),
    per_day: Type.Integer({ minimum: 1, maximum: LIMIT_MAX }),
    streams: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Live streams open at once; default: the tier\'s' })),
  },
  { additionalProperties: false },
);

export const AdminUser = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    tier: StringEnum(TIERS),
    role: Type.String(),
    disabled: Type.Boolean(),
    email_verified: Type.Boolean(),
    limits: Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer(), streams: Type.Integer() }, { additionalProperties: false, description: 'Effective limits' }),
    custom_limits: Type.Union([Type.Object({
      per_minute: Type.Union([Type.Integer(), Type.Null()]), per_day: Type.Union([Type.Integer(), Type.Null()]), streams: Type.Union([Type.Integer(), Type.Null()]),
    }), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'AdminUser', additionalProperties: false },
);

export const AdminOrganization = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    personal: Type.Boolean(),
    tier: StringEnum(TIERS),
    limits: Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer(), streams: Type.Integer() }, { additionalProperties: false, description: 'Effective limits' }),
    custom_limits: Type.Union([Type.Object({
      per_minute: Type.Union([Type.Integer(), Type.Null()]), per_day: Type.Union([Type.Integer(), Type.Null()]), streams: Type.Union([Type.Integer(), Type.Null()]),
    }), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'AdminOrganization', additionalProperties: false },
);

function customLimitsOf(row: { limit_per_minute: number | null; limit_per_day: number | null; limit_streams: number | null }) {
  const custom = row.limit_per_minute !== null || row.limit_per_day !== null || row.limit_streams !== null;
  return custom ? { per_minute: row.limit_per_minute, per_day: row.limit_per_day, streams: row.limit_streams } : null;
}

function presentAdminOrganization(row: OrganizationRow) {
  return {
    id: row.id, name: row.name, personal: row.personal === 1, tier: row.tier as (typeof TIERS)[number],
    limits: { ...limitsFor(row), streams: streamCapFor(row) }, custom_limits: customLimitsOf(row), created_at: row.created_at, updated_at: row.updated_at,
  };
}

function presentAdminUser(row: UserWithPlan) {
  return {
    id: row.id, email: row.email, name: row.name, tier: row.tier as (typeof TIERS)[number], role: row.role,
    disabled: row.disabled === 1, email_verified: row.email_verified === 1, limits: { ...limitsFor(row), streams: streamCapFor(row) },
    custom_limits: customLimitsOf(row),
    created_at: row.created_at, updated_at: row.updated_at,
  };
}

export const adminRoutes: FastifyPluginAsyncTypebox<{ admin: AdminService; securityLog: SecurityLog }> = async (app, { admin, securityLog }) => {
  const tags = ['Admin'];
  const config = { auth: 'admin' as const, budget: 'exempt' as const };

  app.get('/admin/users', {
    config,
    schema: {
      tags, operationId: 'adminListUsers', summary: 'Find users (by exact email, any letter case)',
      querystring: Type.Object({
        email: Type.Optional(Type.String({ maxLength: 254 })),
        limit: PageLimit,
        cursor: Type.Optional(Type.String({ maxLength: 64 })),
      }, { additionalProperties: false }),
      response: { 200: listOf(Type.Ref('AdminUser')), ...problemResponses([400]) },
    },
  }, async (request) => {
    const { email, limit, cursor } = request.query;
    assertCursor('user', cursor);
    const page = await admin.list({ email }, limit, cursor);
    return { data: page.rows.map(presentAdminUser), next_cursor: page.nextCursor };
  });

  app.patch('/admin/users/:id', {
    config: { ...config, stepUp: true },
    schema: {
      tags, operationId: 'adminUpdateUser', summary: 'Change a user\'s tier, custom limits or disabled flag',
      description: 'Custom `limits` are for the enterprise tier only (400 otherwise); moving an account to another tier drops its custom limits, and `limits: null` returns it to the tier\'s defaults.',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      body: Type.Object({
        tier: Type.Optional(StringEnum(TIERS)),
        limits: Type.Optional(Type.Union([LimitsBody, Type.Null()])),
        disabled: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Type.Ref('AdminUser'), ...problemResponses([400, 404, 413, 415]) },
    },
  }, async (request) => {
    if (!isId('user', request.params.id)) throw new AppError('not_found', 'No user with this id.');
    const updated = await admin.update(request.params.id, request.body);
    await securityLog.record(updated.id, 'account_updated_by_admin', clientOf(request), { admin_id: requireAuth(request).userId, changes: request.body });
    return presentAdminUser(updated);
  });
  const OrgParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
  const checkedOrgId = (id: string) => {
    if (!isId('organization', id)) throw new AppError('not_found', 'No organization with this id.');
    return id;
  };

  app.get('/admin/organizations/:id', {
    config,
    schema: { tags, operationId: 'adminGetOrganization', summary: 'An organization\'s tier and limits', params: OrgParams, response: { 200: Type.Ref('AdminOrganization'), ...problemResponses([404]) } },
  }, async (request) => presentAdminOrganization(await admin.getOrganization(checkedOrgId(request.params.id))));

  app.patch('/admin/organizations/:id', {
    config: { ...config, stepUp: true },
    schema: {
      tags, operationId: 'adminUpdateOrganization', summary: 'Change an organization\'s tier or custom limits',
      description: 'The budget every member and key of the organization spends from. Custom `limits` are for the enterprise tier only (400 otherwise); moving to another tier drops them, and `limits: null` returns to the tier\'s defaults.',
      params: OrgParams,
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
