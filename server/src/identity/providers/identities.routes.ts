import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { clientOf } from '../../kernel/client-info.js';
import { requireAccount } from '../users/request-account.js';
import { requireAuth } from '../../http/caller.js';
import { acceptFormBodies, FORM } from '../../http/form-body.js';
import { problemResponses } from '../../http/schemas.js';
import { AuthorizeQuery, CallbackParams, CodeExchangeBody, IdTokenBody, LinkIdentityBody, ProviderParams } from './identities.schemas.js';
import type { IdentitiesService } from './identities.service.js';
import type { SessionLookup } from '../email/account-email.routes.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Redirect = (description: string) => Type.Null({ description });

/** Sign-in with OpenID Connect / OAuth 2 providers, and the identities linked in settings. */
/**
 * The caller a sign-in request's optional `Authorization` names: a guest signing in with a
 * provider becomes that provider's account. Absent: an ordinary sign-in.
 */
async function guestOf(sessionOf: SessionLookup, authorization: string | undefined): Promise<string | undefined> {
  if (authorization === undefined) return undefined;
  const caller = await sessionOf(authorization, 'Send the guest\'s access token, or no Authorization header.');
  if ('refused' in caller) throw caller.refused;
  return caller.userId;
}

export const identitiesRoutes: FastifyPluginAsyncTypebox<{ identities: IdentitiesService; sessionOf: SessionLookup }> = async (app, { identities, sessionOf }) => {
  const tags = ['Auth'];
  // Nothing a provider sends back, and no code, may travel on in a Referer.
  const redirectTo = (location: string) => ({ Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  acceptFormBodies(app);

  app.get('/auth/providers', {
    config: { publicLimit: 'providers' },
    schema: {
      tags, operationId: 'listSignInProviders', summary: 'The sign-in providers configured here (OIDC_PROVIDERS), for sign-in buttons',
      response: { 200: Type.Object({ data: Type.Array(Type.Ref('SignInProvider')), next_cursor: Type.Null() }, { additionalProperties: false }), ...problemResponses([429]) },
    },
  }, async () => ({ data: identities.providers(), next_cursor: null }));

  app.get('/auth/oidc/:provider/authorize', {
    config: { publicLimit: 'oidc', browserPage: true },
    schema: {
      tags, operationId: 'authorizeWithProvider', summary: "Start signing in with a provider: open this URL in the person's browser",
      description: 'Redirects (302) to the provider. When the person is back, the browser goes to `redirect_uri` with `code` (one use, 2 minutes) and the `state` given here, or with `error` and `error_description`. Redeem the code with POST /v1/auth/oidc/token (or link it with POST /v1/users/me/identities) and the PKCE verifier. A refusal asked for as HTML (a browser navigating here) is a readable page with the same status, not problem+json.',
      params: ProviderParams, querystring: AuthorizeQuery,
      response: { 302: Redirect("To the provider's sign-in page"), ...problemResponses([400, 404, 429, 503]) },
    },
  }, async (request, reply) => reply.code(302).headers(redirectTo(await identities.authorize(request.params.provider, request.query))).send(null));

  const callback = {
    config: { publicLimit: 'oidc', browserPage: true },
    schema: {
      tags, summary: 'Where the provider sends the browser back (register it at the provider as the redirect URI)',
      description: "Redeems the provider's code (PKCE, state, nonce, ID token checked), then redirects (302) to the app's redirect_uri with a one-time `code`, or with `error`. An unknown, used or expired `state` is 400; asked for as HTML (the browser), a refusal is a readable page with the same status, not problem+json.",
      params: ProviderParams,
      response: { 302: Redirect("To the app's redirect_uri"), ...problemResponses([400, 404, 429]) },
    },
  };
  const finish = async (provider: string, params: CallbackParams) =>
    identities.callback(provider, new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string')));
  app.get('/auth/oidc/:provider/callback', { ...callback, schema: { ...callback.schema, operationId: 'providerCallback', querystring: CallbackParams } },
    async (request, reply) => reply.code(302).headers(redirectTo(await finish(request.params.provider, request.query))).send(null));
  // Apple (and any provider told `response_mode=form_post`) posts the answer instead; as JSON it
  // is taken too, so every body this route reads is validated (a body with no schema would not be).
  app.post('/auth/oidc/:provider/callback', {
    ...callback,
    schema: { ...callback.schema, operationId: 'providerCallbackFormPost', body: { content: { [FORM]: { schema: CallbackParams }, 'application/json': { schema: CallbackParams } } } },
  }, async (request, reply) => reply.code(302).headers(redirectTo(await finish(request.params.provider, (request.body ?? {}) as CallbackParams))).send(null));

  app.post('/auth/oidc/token', {
    config: { publicLimit: 'login' },
    schema: {
      tags, operationId: 'exchangeProviderCode', summary: 'Redeem the one-time code from a provider sign-in for tokens',
      description: 'The code works once, with the PKCE verifier of the challenge that started the sign-in; any other answer is 401. Signs in to the account linked to the identity, else to the account with the same verified email (linking it), else to a new account. On an account with a second factor: 403 mfa_required, then POST /v1/auth/mfa/verify. Access tokens carry amr ["oidc"]. With a guest\'s access token in `Authorization`, the guest becomes the provider\'s account (as POST /v1/auth/id-token does).',
      security: [{}, { bearerAuth: [] }],
      body: CodeExchangeBody, response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 409, 413, 415, 429]) },
    },
  }, async (request) => identities.signIn(request.body, clientOf(request), await guestOf(sessionOf, request.headers.authorization)));

  app.post('/auth/id-token', {
    config: { publicLimit: 'login' },
    schema: {
      tags, operationId: 'signInWithIdToken', summary: "Sign in with the ID token of a platform's native sign-in (Apple, Google)",
      description: 'For what Sign in with Apple and Google\'s native sign-in return to an app. `provider` is an OIDC_PROVIDERS entry with `native_client_ids`. '
        + "The token's signature (the issuer's published keys), issuer, audience (one of `native_client_ids`), expiry and, when it carries one, its nonce "
        + '(the request\'s `nonce`, as it is or its SHA-256 in hex) are checked; any failure is 401 `invalid_token`. Accounts are found, made and linked '
        + 'as by the browser flow (POST /v1/auth/oidc/token); on an account with a second factor: 403 mfa_required. Access tokens carry amr ["oidc"]. '
        + 'A provider that cannot be reached is 503 with Retry-After. With a guest\'s access token in `Authorization`, the guest becomes the provider\'s account '
        + '(the identity linked, its verified address taken, the same id and data); 409 when the identity or the address has an account already. An ordinary account\'s token changes nothing.',
      // Signed out, or a guest's access token (the guest becomes this account): the session is optional.
      security: [{}, { bearerAuth: [] }],
      body: IdTokenBody, response: { 200: Type.Ref('TokenResponse'), ...problemResponses([400, 401, 403, 409, 413, 415, 429, 503]) },
    },
  }, async (request) => identities.signInWithIdToken(request.body, clientOf(request), await guestOf(sessionOf, request.headers.authorization)));

  const settings = { auth: 'session' as const, budget: 'exempt' as const };

  app.get('/users/me/identities', {
    config: settings,
    schema: {
      tags: ['Identities'], operationId: 'listIdentities', summary: 'The sign-in providers linked to the account, newest first',
      response: { 200: Type.Object({ data: Type.Array(Type.Ref('Identity')), next_cursor: Type.Null() }, { additionalProperties: false }) },
    },
  }, async (request) => ({ data: await identities.list(requireAuth(request).userId), next_cursor: null }));

  app.post('/users/me/identities', {
    config: { ...settings, stepUp: 'always', locationHeader: true },
    schema: {
      tags: ['Identities'], operationId: 'linkIdentity', summary: 'Link a provider sign-in to the account',
      description: 'Start with GET /v1/auth/oidc/{provider}/authorize, then send the code it returned here with the PKCE verifier. Needs the password (accounts without one: a sign-in within MFA_STEP_UP_SECONDS), and on an account with TOTP a factor proved within MFA_STEP_UP_SECONDS.',
      body: LinkIdentityBody, response: { 201: Type.Ref('Identity'), ...problemResponses([400, 401, 403, 409, 413, 415, 429]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    const created = await identities.link(requireAccount(request), auth.sessionId!, request.body, clientOf(request));
    return reply.code(201).header('Location', `/v1/users/me/identities/${created.id}`).send(created);
  });

  app.delete('/users/me/identities/:id', {
    config: { ...settings, stepUp: 'always' },
    schema: {
      tags: ['Identities'], operationId: 'unlinkIdentity', summary: 'Unlink a provider', params: IdParams,
      description: "Refused (409) when it is the account's only way in: no password, no passkey, no other provider.",
      response: { 204: Type.Null({ description: 'Unlinked' }), ...problemResponses([404, 409]) },
    },
  }, async (request, reply) => {
    await identities.unlink(requireAccount(request), request.params.id, clientOf(request));
    return reply.code(204).send(null);
  });
};
