import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/authenticate.js';
import { clientOf } from '../../core/client-info.js';
import { problemResponses } from '../../http/schemas.js';
import { EmailField, PasswordField } from '../users/users.schemas.js';
import type { AccountEmailService } from './account-email.service.js';

const Accepted = Type.Object({ message: Type.String() }, { additionalProperties: false });
const TokenField = Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' });

export const accountEmailRoutes: FastifyPluginAsyncTypebox<{ accountEmail: AccountEmailService }> = async (app, { accountEmail }) => {
  const tags = ['Auth'];

  app.post('/auth/email/verify', {
    config: { publicLimit: 'verify' },
    schema: {
      tags, operationId: 'verifyEmail', summary: 'Confirm an email address with the token from the mail',
      description: 'The link of every mail that confirms an address: the one sent at registration (or resent), and the one a change of email sends to the new address '
        + '(POST /v1/users/me/email), which makes that address the account\'s sign-in address. 409 `email_taken` when another account took the new address meanwhile.',
      body: Type.Object({ token: TokenField }, { additionalProperties: false }),
      response: { 204: Type.Null({ description: 'Verified' }), ...problemResponses([400, 401, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    await accountEmail.verify(request.body.token, clientOf(request));
    return reply.code(204).send(null);
  });

  app.post('/users/me/email/verification', {
    config: { auth: 'session', budget: 'exempt' },
    schema: {
      tags: ['Account'], operationId: 'resendVerification', summary: 'Send the verification mail again (3 per hour)',
      response: { 202: Accepted, ...problemResponses([409]) },
    },
  }, async (request, reply) => {
    await accountEmail.resendVerification(requireAuth(request).userId);
    return reply.code(202).send({ message: 'A new verification link is on its way.' });
  });

  app.post('/auth/password/forgot', {
    config: { publicLimit: 'forgot' },
    schema: {
      tags, operationId: 'forgotPassword', summary: 'Mail a password-reset link',
      description: 'Always 202, in the same time, whether or not the address has an account.',
      body: Type.Object({ email: EmailField }, { additionalProperties: false }),
      response: { 202: Accepted, ...problemResponses([400, 413, 415]) },
    },
  }, async (request, reply) => {
    accountEmail.requestReset(request.body.email, clientOf(request));
    return reply.code(202).send({ message: 'If an account uses this address, a reset link is on its way.' });
  });

  app.post('/auth/password/reset', {
    config: { publicLimit: 'reset' },
    schema: {
      tags, operationId: 'resetPassword', summary: 'Set a new password with the token from the mail; signs out every session',
      description: 'With `revoke_api_keys: true` every API key of the account is revoked too, in the same step (a reset usually follows a compromise).',
      body: Type.Object({
        token: TokenField,
        password: PasswordField,
        revoke_api_keys: Type.Optional(Type.Boolean({ default: false, description: 'Also revoke every API key of the account' })),
      }, { additionalProperties: false }),
      response: { 204: Type.Null({ description: 'Password changed' }), ...problemResponses([400, 401, 413, 415]) },
    },
  }, async (request, reply) => {
    await accountEmail.reset(request.body.token, request.body.password, clientOf(request), { revokeApiKeys: request.body.revoke_api_keys === true });
    return reply.code(204).send(null);
  });
};
