import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { acceptFormBodies, FORM } from '../../http/form-body.js';
import { problemResponses } from '../../http/schemas.js';
import { clientOf } from '../../kernel/client-info.js';
import type { AccountEmailService } from '../email/account-email.service.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { presentUser } from '../users/users.presenter.js';
import { RegisterBody } from '../users/users.schemas.js';
import type { UsersService } from '../users/users.service.js';
import { LoginBody, LogoutBody, RefreshBody } from './auth.schemas.js';
import type { LoginService } from './login.service.js';

interface Deps {
  users: UsersService;
  login: LoginService;
  sessions: SessionsService;
  accountEmail: AccountEmailService;
  securityLog: SecurityLog;
}

/** Login and refresh also take OAuth2-style form posts; the parser lives only in this scope. */
const oauthFormRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { login, sessions }) => {
  acceptFormBodies(app);
  // With a schema per media type, Fastify validates only a body whose type matched one; a POST
  // with no body at all matched none and reached the handler as undefined (a 500, found by fuzzing).
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) {
      throw new AppError('validation_failed', 'the value must be of type object.', { errors: [{ field: '/', code: 'invalid_type', message: 'the value must be of type object.' }] });
    }
  });
  const tags = ['Auth'];
  const tokenBody = (schema: typeof LoginBody | typeof RefreshBody) => ({
    content: { 'application/json': { schema }, [FORM]: { schema } },
  });

  app.post('/auth/login', {
    config: { publicLimit: 'login' },
    schema: {
      tags, operationId: 'login', summary: 'Exchange email and password for tokens',
      description: 'Unknown email and wrong password answer the same 401. Repeated failures per email and per IP answer 429 too_many_attempts.',
      body: tokenBody(LoginBody),
      response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 413, 415, 429]) },
    },
  }, async (request) => {
    const body = request.body as LoginBody;
    return login.login(body.username, body.password, clientOf(request));
  });

  app.post('/auth/refresh', {
    config: { publicLimit: 'refresh' },
    schema: {
      tags, operationId: 'refresh', summary: 'Rotate a refresh token for a new token pair',
      description: 'Each refresh token works once. Reusing one after rotation (outside a 10 s grace) revokes the whole session.',
      body: tokenBody(RefreshBody),
      response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 413, 415, 429]) },
    },
  }, async (request) => sessions.refresh((request.body as RefreshBody).refresh_token, clientOf(request)));
};

export const authRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const tags = ['Auth'];

  app.post('/auth/register', {
    config: { publicLimit: 'register', locationHeader: true },
    schema: {
      tags, operationId: 'register', summary: 'Create an account',
      body: RegisterBody,
      response: { 201: Type.Ref('User'), ...problemResponses([400, 409, 413, 415, 429]) },
    },
  }, async (request, reply) => {
    const user = await deps.users.register(request.body);
    await deps.accountEmail.sendVerification(user);
    return reply.code(201).header('Location', `/v1/users/me`).send(presentUser(user));
  });

  await app.register(oauthFormRoutes, deps);

  app.post('/auth/logout', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'never' }, // signing out only takes access away
    // The body is optional (this session): a request without one is read as `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    schema: {
      tags, operationId: 'logout', summary: 'Sign out: this session, every other one, or all',
      description: '`scope`: `current` (the default) revokes this session; `others` every other session of the account ("sign out everywhere else"); `all` every session. '
        + 'The revoked sessions\' access tokens are refused at once on every instance, and their live streams close.',
      body: LogoutBody, response: { 204: Type.Null({ description: 'Signed out' }), ...problemResponses([400, 413, 415]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    const scope = request.body.scope ?? 'current';
    const revoked = await deps.sessions.signOut(auth.userId, auth.sessionId!, scope);
    if (scope === 'current') await deps.securityLog.record(auth.userId, 'sign_out', clientOf(request), { session_id: auth.sessionId });
    else await deps.securityLog.record(auth.userId, 'sessions_revoked', clientOf(request), { scope, count: revoked.length, session_id: auth.sessionId });
    return reply.code(204).send(null);
  });
};
