import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { SECURITY_EVENT_TYPES, type SecurityEventType, type SecurityLog } from './security-log.js';

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

/** `?limit&cursor&type`: a page of a user's security log, one kind of event or all. */
export const SecurityEventsQuery = Type.Object(
  { ...ListQuery.properties, type: Type.Optional(StringEnum(SECURITY_EVENT_TYPES, { description: 'Only events of this type' })) },
  { additionalProperties: false },
);
type SecurityEventsQuery = Static<typeof SecurityEventsQuery>;

/** One page of `userId`'s security log as the API shows it (the account's own, and an admin's view of it). */
export async function securityEventsPage(securityLog: SecurityLog, userId: string, query: SecurityEventsQuery) {
  assertCursor('securityEvent', query.cursor);
  const page = await securityLog.list(userId, query.limit, query.cursor, query.type);
  return {
    data: page.rows.map((e) => ({ id: e.id, type: e.type as SecurityEventType, ip: e.ip, user_agent: e.user_agent, detail: JSON.parse(e.detail) as Record<string, unknown>, created_at: e.created_at })),
    next_cursor: page.nextCursor,
  };
}

export const securityLogRoutes: FastifyPluginAsyncTypebox<{ securityLog: SecurityLog }> = async (app, { securityLog }) => {
  app.get('/users/me/security-events', {
    config: { auth: 'session', budget: 'exempt' },
    schema: {
      tags: ['Account'], operationId: 'listSecurityEvents', summary: 'What happened to the account: sign-ins, password and key changes, newest first',
      querystring: SecurityEventsQuery, response: { 200: listOf(Type.Ref('SecurityEvent')), ...problemResponses([400]) },
    },
  }, async (request) => securityEventsPage(securityLog, requireAuth(request).userId, request.query));
};
