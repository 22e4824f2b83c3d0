import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAccount, requireAuth, requireOrganization } from '../../http/authenticate.js';
import { problemResponses } from '../../http/schemas.js';
import { Type } from 'typebox';
import { ChangePasswordBody, DeleteMeBody, Me, UpdateMeBody } from './users.schemas.js';
import { presentMe } from './users.presenter.js';
import type { UsersService } from './users.service.js';
import { clientOf } from '../../core/client-info.js';
import type { AccountEmailService } from '../email/account-email.service.js';
import type { SecurityLog } from '../security-log/security-log.js';

const config = { auth: 'session' as const, budget: 'exempt' as const };

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService; securityLog: SecurityLog; accountEmail: AccountEmailService }> = async (app, { users, securityLog, accountEmail }) => {
  const tags = ['Account'];

  // The account the authenticate step just loaded (the cache requireUser reads): no await.
  // Me names the organization the request acts for, and its tier and budget.
  app.get('/users/me', {
    config: { ...config, organizationScoped: true },
    schema: { tags, operationId: 'getMe', summary: 'The signed-in user', response: { 200: Type.Ref('Me') } },
  }, (request) => presentMe(requireAccount(request), requireOrganization(request)));

  app.patch('/users/me', {
    config: { ...config, organizationScoped: true },
    schema: { tags, operationId: 'updateMe', summary: 'Change the display name', body: UpdateMeBody, response: { 200: Type.Ref('Me'), ...problemResponses([400, 413, 415]) } },
  }, async (request) => presentMe(await users.update(requireAuth(request).userId, request.body), requireOrganization(request)));

  app.delete('/users/me', {
    config: { ...config, stepUp: true },
    schema: {
      tags, operationId: 'deleteMe', summary: 'Delete the account and everything it owns',
      description: 'Needs the current password. Deletes the personal organization and every organization the account is the only member of, with all they hold; '
        + '409 `last_owner` while the account is the last owner of an organization that has other members.',
      body: DeleteMeBody, response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses([400, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    await users.delete(requireAuth(request).userId, request.body.password);
    return reply.code(204).send(null);
  });

  app.post('/users/me/password', {
    config: { ...config, stepUp: true },
    schema: {
      tags, operationId: 'changePassword', summary: 'Change the password; signs out every other session',
      body: ChangePasswordBody, response: { 204: Type.Null({ description: 'Changed' }), ...problemResponses([400, 413, 415]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    await users.changePassword(auth.userId, auth.sessionId!, request.body);
    await securityLog.record(auth.userId, 'password_changed', clientOf(request));
    accountEmail.notifyPasswordChanged(await users.requireUser(auth.userId));
    return reply.code(204).send(null);
  });
};
