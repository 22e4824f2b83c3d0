import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { problemResponses, StringEnum } from '../../http/schemas.js';
import { AppError } from '../../kernel/errors.js';
import { REGISTRABLE_GRANT_TYPES, type OauthApps } from './oauth-apps.js';
import { checkRedirectUri } from './redirect-uris.js';
import { OAUTH_ROUTES } from './authorization-server.js';

/**
 * RFC 7591's client metadata, the members Gatehouse reads. Others (logo_uri, client_uri,
 * software_id…) are allowed and ignored, as §2 says a server does with what it does not use.
 */
const RegistrationBody = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 10, description: 'https, http on 127.0.0.1 or [::1] (any port), or a reverse-domain custom scheme' }),
    client_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    token_endpoint_auth_method: Type.Optional(StringEnum(['none', 'client_secret_basic', 'client_secret_post'] as const, { description: 'none (default): a public client, with PKCE only' })),
    grant_types: Type.Optional(Type.Array(StringEnum(REGISTRABLE_GRANT_TYPES), { minItems: 1, maxItems: 3, uniqueItems: true })),
    response_types: Type.Optional(Type.Array(Type.Literal('code'), { minItems: 1, maxItems: 1 })),
    scope: Type.Optional(Type.String({ maxLength: 1000, description: 'Space-separated platform scopes the app may ask for (default: all of them)' })),
  },
  { additionalProperties: true },
);

const RegisteredClient = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_secret: Type.Optional(Type.String({ description: 'A confidential client\'s secret: in this response only' })),
    client_secret_expires_at: Type.Optional(Type.Integer({ description: '0: it does not expire' })),
    client_name: Type.String(),
    redirect_uris: Type.Array(Type.String()),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.String(),
    scope: Type.String(),
  },
  { additionalProperties: false },
);

/**
 * `POST /oauth/register` (RFC 7591) while OAUTH_DYNAMIC_CLIENT_REGISTRATION is on: an MCP client
 * registers itself on first connect. Public (anyone may call it), so it is per-IP limited like
 * sign-in; what it makes can do nothing until a person allows it on the consent page, which
 * shows that no organization registered it. A bad redirect URI is RFC 7591's
 * `invalid_redirect_uri`, carried in the problem document's `error` member.
 */
export const oauthRegistrationRoutes: FastifyPluginAsyncTypebox<{ apps: OauthApps; now: () => number }> = async (app, { apps, now }) => {
  app.post(OAUTH_ROUTES.registration, {
    config: { publicLimit: 'oauth-register' },
    // OAuth's own protocol, as the engine's endpoints: described in docs/reference/endpoints.md, not in the OpenAPI document.
    schema: {
      hide: true,
      body: RegistrationBody, response: { 201: RegisteredClient, ...problemResponses([400, 413, 415, 429]) },
    },
  }, async (request, reply) => {
    const body = request.body;
    for (const uri of body.redirect_uris) {
      try {
        checkRedirectUri(uri);
      } catch (error) {
        if (error instanceof AppError) throw new AppError('validation_failed', error.message, { error: 'invalid_redirect_uri', error_description: error.message });
        throw error;
      }
    }
    const authMethod = body.token_endpoint_auth_method ?? 'none';
    const created = await apps.register({
      name: body.client_name ?? 'Unnamed app', authMethod, redirect_uris: body.redirect_uris, scope: body.scope, grant_types: body.grant_types,
    });
    return reply.code(201).header('Cache-Control', 'no-store').send({
      client_id: created.id,
      client_id_issued_at: Math.floor(now() / 1000),
      ...(created.client_secret === undefined ? {} : { client_secret: created.client_secret, client_secret_expires_at: 0 }),
      client_name: created.name,
      redirect_uris: created.redirect_uris,
      grant_types: created.grant_types,
      response_types: ['code'],
      token_endpoint_auth_method: authMethod,
      scope: created.scopes.join(' '),
    });
  });
};
