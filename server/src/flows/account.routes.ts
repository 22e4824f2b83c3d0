import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../http/caller.js';
import { problemResponses } from '../http/schemas.js';
import { clientOf } from '../kernel/client-info.js';
import { DeleteMeBody, DeletionScheduled } from '../identity/index.js';
import type { AccountDeletion } from './account-deletion.js';
import type { AccountExport } from './account-export.js';

const config = { auth: 'session' as const, budget: 'exempt' as const };

/** The account's own deletion and export: flows that cross every context, under /v1/users/me. */
export const accountFlowRoutes: FastifyPluginAsyncTypebox<{ accountDeletion: AccountDeletion; accountExport: AccountExport }> = async (app, { accountDeletion, accountExport }) => {
  const tags = ['Account'];

  app.delete('/users/me', {
    config: { ...config, stepUp: 'always', guests: 'allowed' }, // a guest may leave, with all it made
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
};
