import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses, Timestamp } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { clientOf } from '../../kernel/client-info.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService } from './sessions.service.js';

export const Session = Type.Object(
  {
    id: Type.String(),
    created_at: Timestamp,
    last_used_at: Timestamp,
    expires_at: Timestamp,
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'True for the session of the token making this request' }),
  },
  { $id: 'Session', additionalProperties: false },
);

export const sessionsRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService; securityLog: SecurityLog }> = async (app, { sessions, securityLog }) => {
  const tags = ['Sessions'];

  app.get('/sessions', {
    config: { auth: 'session', budget: 'exempt' },
    schema: { tags, operationId: 'listSessions', summary: 'Active sessions of the account, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('Session')), ...problemResponses([400]) } },
  }, async (request) => {
    const auth = requireAuth(request);
    const { limit, cursor } = request.query;
    assertCursor('session', cursor);
    const page = await sessions.list(auth.userId, limit, cursor);
    return {
      data: page.rows.map((s) => ({ id: s.id, created_at: s.created_at, last_used_at: s.last_used_at, expires_at: s.expires_at, ip: s.ip, user_agent: s.user_agent, current: s.id === auth.sessionId })),
      next_cursor: page.nextCursor,
    };
  });

  app.delete('/sessions/:id', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'never' }, // revoking only takes access away
    schema: {
      tags, operationId: 'revokeSession', summary: 'Revoke a session; its tokens stop working at once',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 204: Type.Null({ description: 'Revoked' }), ...problemResponses([404]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    if (!isId('session', request.params.id)) throw new AppError('not_found', 'No active session with this id.');
    await sessions.revoke(auth.userId, request.params.id);
    await securityLog.record(auth.userId, 'session_revoked', clientOf(request), { session_id: request.params.id });
    return reply.code(204).send(null);
  });
};
