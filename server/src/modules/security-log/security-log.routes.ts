import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/authenticate.js';
import { assertCursor } from '../../core/pagination.js';
import { ListQuery, listOf, problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { SECURITY_EVENT_TYPES, type SecurityLog } from './security-log.js';

export const SecurityEvent = Type.Object(
  {
    id: Type.String(),
    type: StringEnum(SECURITY_EVENT_TYPES),
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    detail: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
  },
  { $id: 'SecurityEvent', additionalProperties: false },
);

export const securityLogRoutes: FastifyPluginAsyncTypebox<{ securityLog: SecurityLog }> = async (app, { securityLog }) => {
  app.get('/users/me/security-events', {
    config: { auth: 'session', budget: 'exempt' },
    schema: {
      tags: ['Account'], operationId: 'listSecurityEvents', summary: 'What happened to the account: sign-ins, password and key changes, newest first',
      querystring: ListQuery, response: { 200: listOf(Type.Ref('SecurityEvent')), ...problemResponses([400]) },
    },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('securityEvent', cursor);
    const page = await securityLog.list(requireAuth(request).userId, limit, cursor);
    return {
      data: page.rows.map((e) => ({ id: e.id, type: e.type as (typeof SECURITY_EVENT_TYPES)[number], ip: e.ip, user_agent: e.user_agent, detail: JSON.parse(e.detail) as Record<string, unknown>, created_at: e.created_at })),
      next_cursor: page.nextCursor,
    };
  });
};
