import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAccount } from './request-account.js';
import { requireAuth } from '../../http/caller.js';
import { requireOrganization } from '../../http/caller.js';
import { problemResponses } from '../../http/schemas.js';
import { Type } from 'typebox';
import { ChangePasswordBody, Me, UpdateMeBody } from './users.schemas.js';
import type { UserRow } from './users.repository.js';
import { presentMe } from './users.presenter.js';
import type { UsersService } from './users.service.js';
import { clientOf } from '../../kernel/client-info.js';
import type { SecurityLog } from '../security-log/security-log.js';

const config = { auth: 'session' as const, budget: 'exempt' as const };

interface Deps {
  users: UsersService;
  securityLog: SecurityLog;
  /** Tells the account's address its password changed (email/ mails it). */
  notifyPasswordChanged: (user: UserRow) => void;
}

export const usersRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { users, securityLog, notifyPasswordChanged }) => {
  const tags = ['Account'];

  // The account the authenticate step just loaded (the cache requireUser reads): no await.
  // Me names the organization the request acts for, and its tier and budget.
  app.get('/users/me', {
    config: { ...config, organization: 'header' },
    schema: { tags, operationId: 'getMe', summary: 'The signed-in user', response: { 200: Type.Ref('Me') } },
  }, (request) => presentMe(requireAccount(request), requireOrganization(request)));

  app.patch('/users/me', {
    config: { ...config, organization: 'header', stepUp: 'never' },
    schema: { tags, operationId: 'updateMe', summary: 'Change the display name', body: UpdateMeBody, response: { 200: Type.Ref('Me'), ...problemResponses([400, 413, 415]) } },
  }, async (request) => presentMe(await users.update(requireAuth(request).userId, request.body), requireOrganization(request)));

  app.post('/users/me/password', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'changePassword', summary: 'Change the password; signs out every other session',
      body: ChangePasswordBody, response: { 204: Type.Null({ description: 'Changed' }), ...problemResponses([400, 413, 415]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    await users.changePassword(auth.userId, auth.sessionId!, request.body);
    await securityLog.record(auth.userId, 'password_changed', clientOf(request));
    notifyPasswordChanged(await users.requireUser(auth.userId));
    return reply.code(204).send(null);
  });
};
