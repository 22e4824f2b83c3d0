import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import type { AppError } from '../../kernel/errors.js';
import { clientOf } from '../../kernel/client-info.js';
import { problemResponses } from '../../http/schemas.js';
import { ChangeEmailBody, EmailChangePending, EmailField, PasswordField } from '../users/users.schemas.js';
import type { UsersService } from '../users/users.service.js';
import type { AccountEmailService } from './account-email.service.js';

const Accepted = Type.Object({ message: Type.String() }, { additionalProperties: false });
const TokenField = Type.String({ minLength: 1, maxLength: 200, description: 'The token from the link in the mail' });

/**
 * The user whose access token `authorization` carries, checked as the authenticate step checks a
 * 'session' route's caller, or the refusal it would answer; never throws a refusal (the route
 * decides whether it needs the session). access/caller/authenticate.ts `sessionCaller` is it.
 */
export type SessionLookup = (authorization: string | undefined, missing: string) => Promise<{ userId: string } | { refused: AppError }>;

export const accountEmailRoutes: FastifyPluginAsyncTypebox<{ accountEmail: AccountEmailService; users: UsersService; sessionOf: SessionLookup }> = async (app, { accountEmail, users, sessionOf }) => {
  const tags = ['Auth'];

  app.post('/auth/email/verify', {
    config: { publicLimit: 'verify' },
    schema: {
      tags, operationId: 'verifyEmail', summary: 'Confirm an email address with the token from the mail',
      description: 'The link of every mail that confirms an address: the one sent at registration (or resent), and the one a change of email sends to the new address '
        + '(POST /v1/users/me/email), which makes that address the account\'s sign-in address. 409 `email_taken` when another account took the new address meanwhile.\n\n'
        + 'A registration link needs no credential (an Authorization header is ignored). A change of email\'s link also needs the account\'s owner signed in: '
        + '`Authorization: Bearer <access token>` of the same account, so that whoever reads a mistyped new address cannot take the account. '
        + 'So does the verification link of an account whose address came from a sign-in provider not trusted for addresses (`link_by_email: false`) and is not confirmed yet: '
        + 'the account signed in (with that provider) confirms it and keeps its provider sign-in, while whoever merely receives the mail cannot confirm someone else\'s claim on their address. '
        + 'Without it 401 `authentication_required` (sign in with the current address, then open the link again); an invalid, expired or revoked token 401 as on any route; '
        + 'an API key 403 `session_required`; another account\'s token 403 `forbidden`; a disabled account 403 `account_disabled`, one scheduled for deletion 401 `invalid_token`. '
        + 'A refused request leaves the link unspent. Clients send their session whenever they have one.',
      // Optional: either no credential, or an access token (OpenAPI's way to say "may be sent").
      security: [{}, { bearerAuth: [] }],
      body: Type.Object({ token: TokenField }, { additionalProperties: false }),
      response: { 204: Type.Null({ description: 'Verified' }), ...problemResponses([400, 401, 403, 409, 413, 415]) },
    },
  }, async (request, reply) => {
    // Resolved before the transaction that reads and spends the token (and used only if it is a
    // change of email's, or confirms an address a provider claimed): its reads (an API key, the account) would otherwise wait on that
    // transaction's connection, the only one on SQLite.
    const follower = await sessionOf(request.headers.authorization,
      'This link needs its account signed in: sign in (with your current email address, or the sign-in provider the account uses), then open the link again.');
    await accountEmail.verify(request.body.token, clientOf(request), follower);
    return reply.code(204).send(null);
  });

  app.post('/users/me/email', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'always' },
    schema: {
      tags: ['Account'], operationId: 'changeEmail', summary: 'Change the sign-in email address (confirmed from a link mailed to the new one)',
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

  app.post('/users/me/email/verification', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'never' },
    schema: {
      tags: ['Account'], operationId: 'resendVerification', summary: 'Send the verification mail again (3 per hour)',
      description: 'Also for an account whose address came from a sign-in provider not trusted for addresses (`link_by_email: false`): its link then confirms only when '
        + 'followed signed in as this account (POST /v1/auth/email/verify with its access token). 409 `conflict` when the address is already confirmed.',
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
