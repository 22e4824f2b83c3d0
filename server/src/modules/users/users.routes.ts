import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAccount, requireAuth, requireOrganization } from '../../http/authenticate.js';
import { problemResponses } from '../../http/schemas.js';
import { Type } from 'typebox';
import { ChangeEmailBody, ChangePasswordBody, DeleteMeBody, DeletionScheduled, EmailChangePending, Me, UpdateMeBody } from './users.schemas.js';
import { presentMe } from './users.presenter.js';
import type { UsersService } from './users.service.js';
import { clientOf } from '../../core/client-info.js';
import type { AccountEmailService } from '../email/account-email.service.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { AccountDeletion } from '../accounts/account-deletion.js';
import type { AccountExport } from '../accounts/account-export.js';

const config = { auth: 'session' as const, budget: 'exempt' as const };

interface Deps {
  users: UsersService;
  securityLog: SecurityLog;
  accountEmail: AccountEmailService;
  accountDeletion: AccountDeletion;
  accountExport: AccountExport;
}

export const usersRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { users, securityLog, accountEmail, accountDeletion, accountExport }) => {
  const tags = ['Account'];

  // The account the authenticate step just loaded (the cache requireUser reads): no await.
  // Me names the organization the request acts for, and its tier and budget.
  app.get('/users/me', {
    config: { ...config, organizationScoped: true },
    schema: { tags, operationId: 'getMe', summary: 'The signed-in user', response: { 200: Type.Ref('Me') } },
  }, (request) => presentMe(requireAccount(request), requireOrganization(request)));

  app.patch('/users/me', {
    config: { ...config, organizationScoped: true, stepUp: 'never' },
    schema: { tags, operationId: 'updateMe', summary: 'Change the display name', body: UpdateMeBody, response: { 200: Type.Ref('Me'), ...problemResponses([400, 413, 415]) } },
  }, async (request) => presentMe(await users.update(requireAuth(request).userId, request.body), requireOrganization(request)));

  app.delete('/users/me', {
    config: { ...config, stepUp: 'always' },
    // An account without a password sends no body (a recent sign-in confirms it): read as `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    schema: {
      tags, operationId: 'deleteMe', summary: 'Delete the account and everything it owns, after a grace period',
      description: 'Needs the current password (an account without one: a sign-in within MFA_STEP_UP_SECONDS). At once every session is signed out and every API key the account created is revoked, '
        + 'on every instance; the account and what it owns (its personal organization and every organization it is the only member of, with all they hold) are deleted at `deletion_due_at` '
        + '(ACCOUNT_DELETION_GRACE_DAYS, default 30; 0: at once). Signing in before then restores the account (revoked keys stay revoked). '
        + '409 `last_owner`, with nothing changed, while the account is the last owner of an organization that has other members.',
      body: DeleteMeBody, response: { 202: DeletionScheduled, ...problemResponses([400, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    return reply.code(202).send(await accountDeletion.schedule(auth.userId, auth.sessionId!, request.body.password, clientOf(request)));
  });

  app.post('/users/me/email', {
    config: { ...config, stepUp: 'always' },
    schema: {
      tags, operationId: 'changeEmail', summary: 'Change the sign-in email address (confirmed from a link mailed to the new one)',
      description: 'Needs the current password (an account without one: a sign-in within MFA_STEP_UP_SECONDS). Mails a single-use link (24 h) to the new address; '
        + 'following it signed in as this account (`POST /v1/auth/email/verify {token}` with its access token) makes it the sign-in address, confirmed, and tells the old address. Until then nothing changes. '
        + 'A newer request voids the older link. 409 `email_taken` when another account uses the address. 3 requests per hour that get this far (a mail, or a taken address).',
      body: ChangeEmailBody, response: { 202: EmailChangePending, ...problemResponses([400, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    await users.confirmIdentity(auth.userId, auth.sessionId!, request.body.password, '/password');
    const pending = await accountEmail.requestEmailChange(auth.userId, request.body.email, clientOf(request));
    return reply.code(202).send({ pending_email: pending });
  });

  app.get('/users/me/export', {
    config,
    schema: {
      tags, operationId: 'exportMe', summary: 'Everything the account holds, as one JSON file',
      description: 'A download (`Content-Disposition: attachment`): the profile, organizations and roles, what the personal organization holds (agents, chats with their messages, '
        + 'webhook endpoints and API keys without secrets), sessions, passkeys, linked providers and the security log. Written as it is read; 10 per hour.',
      response: { 200: Type.Ref('AccountExport') },
    },
  }, async (request, reply) => {
    const { filename, chunks } = await accountExport.start(requireAuth(request).userId, clientOf(request));
    return reply.type('application/json; charset=utf-8').header('Content-Disposition', `attachment; filename="${filename}"`).send(Readable.from(chunks));
  });

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
    accountEmail.notifyPasswordChanged(await users.requireUser(auth.userId));
    return reply.code(204).send(null);
  });
};
