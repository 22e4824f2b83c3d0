import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { problemResponses } from '../../http/schemas.js';
import { clientOf } from '../../kernel/client-info.js';
import { fieldError } from '../../kernel/errors.js';
import type { PasswordlessService } from './passwordless.service.js';
import { PasswordlessStartBody, PasswordlessVerifyBody } from './passwordless.schemas.js';

const Accepted = Type.Object({ message: Type.String() }, { additionalProperties: false });

/** Passwordless sign-in by mail: a code to type, or the mailed link (passwordless.service.ts). */
export const passwordlessRoutes: FastifyPluginAsyncTypebox<{ passwordless: PasswordlessService }> = async (app, { passwordless }) => {
  const tags = ['Auth'];

  app.post('/auth/passwordless/start', {
    config: { publicLimit: 'passwordless-start' },
    schema: {
      tags, operationId: 'startPasswordless', summary: 'Mail a sign-in code and link',
      description: 'Always 202, at once, whether or not the address has an account. The mail holds a 6-digit code and a single-use link '
        + '(`PUBLIC_URL/sign-in?token=…`, or under `APP_LINK_URL`); both work for 10 minutes, and a new request retires the older ones. '
        + 'With `create_account: false`, an address without an account gets no mail. Mails are limited per address and per IP (429 `too_many_attempts`).',
      body: PasswordlessStartBody,
      response: { 202: Accepted, ...problemResponses([400, 413, 415, 429]) },
    },
  }, async (request, reply) => {
    await passwordless.start(request.body.email, request.body.create_account ?? true, clientOf(request));
    return reply.code(202).send({ message: 'If this address may sign in, a code and a link are on their way.' });
  });

  app.post('/auth/passwordless/verify', {
    config: { publicLimit: 'passwordless-verify' },
    schema: {
      tags, operationId: 'verifyPasswordless', summary: 'Exchange a mailed code (or link) for tokens',
      description: 'Send `email` and `code`, or the link\'s `token`. Answers like a login: the access token\'s `amr` is `email_code` or `email_link`; '
        + 'an account with a second factor answers 403 `mfa_required` with its challenge. A proved code confirms the address, and makes the account when '
        + 'the start allowed it. A wrong code is 401 `invalid_credentials`, counted before it is checked per address and per IP (429 `too_many_attempts`); '
        + 'a code survives 5 wrong guesses. A used, expired or replaced link is 401 `invalid_token`.',
      body: PasswordlessVerifyBody,
      response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 413, 415, 429]) },
    },
  }, async (request) => {
    const { email, code, token } = request.body;
    const client = clientOf(request);
    if (token !== undefined) {
      if (email !== undefined || code !== undefined) throw fieldError('/token', 'not_allowed', 'Send either the link\'s token alone, or email and code.');
      return passwordless.verifyLink(token, client);
    }
    if (email === undefined) throw fieldError('/email', 'required', 'email is required with a code.');
    if (code === undefined) throw fieldError('/code', 'required', 'code is required, or send the link\'s token instead.');
    return passwordless.verifyCode(email, code, client);
  });
};
