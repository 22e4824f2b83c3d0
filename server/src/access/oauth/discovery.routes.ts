import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { accessTokenAudience } from '../../identity/index.js';
import { OAUTH_ROUTES, type AuthorizationServer } from './authorization-server.js';

const Strings = Type.Array(Type.String());

export const OpenIdConfiguration = Type.Object(
  {
    issuer: Type.String({ description: 'The `iss` of every token: PUBLIC_URL' }),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String({ description: "The authorization server's: codes, refresh tokens and device codes of apps (a person's own login is POST /v1/auth/login)" }),
    revocation_endpoint: Type.String(),
    introspection_endpoint: Type.String(),
    device_authorization_endpoint: Type.String(),
    registration_endpoint: Type.Optional(Type.String({ description: 'Present while OAUTH_DYNAMIC_CLIENT_REGISTRATION=true' })),
    client_id_metadata_document_supported: Type.Optional(Type.Boolean({ description: 'A client_id may be the https URL of its metadata document (while OAUTH_DYNAMIC_CLIENT_REGISTRATION=true)' })),
    jwks_uri: Type.String(),
    response_types_supported: Strings,
    response_modes_supported: Strings,
    grant_types_supported: Strings,
    code_challenge_methods_supported: Strings,
    subject_types_supported: Strings,
    id_token_signing_alg_values_supported: Strings,
    token_endpoint_auth_methods_supported: Strings,
    revocation_endpoint_auth_methods_supported: Strings,
    introspection_endpoint_auth_methods_supported: Strings,
    scopes_supported: Strings,
    claims_supported: Strings,
    authorization_response_iss_parameter_supported: Type.Boolean(),
    resource_indicators_supported: Type.Boolean(),
    protected_resources: Type.Array(Type.String(), { description: 'What a token can be bound to (RFC 8707): the REST API and the MCP endpoint' }),
    /** Not in OpenID Connect Discovery: the `aud` a login's access tokens carry, for verifiers to check. */
    access_token_audience: Type.String({ description: "The `aud` of a login's access tokens: PUBLIC_URL/v1 (an app's token carries the resource it was issued for)" }),
  },
  { additionalProperties: false },
);

/**
 * The authorization server's metadata (RFC 8414): where an OAuth client finds the endpoints from
 * the issuer alone. One document, served at `/.well-known/oauth-authorization-server` and, with
 * OpenID Connect Discovery's few members more, at `/.well-known/openid-configuration`, so OAuth
 * and OpenID client libraries and token verifiers all find the same thing.
 */
export function discoveryDocuments(server: AuthorizationServer, publicUrl: string, scopes: readonly string[], options: { dynamicRegistration: boolean }) {
  const at = (path: string) => `${publicUrl}${path}`;
  const oauth = {
    issuer: publicUrl,
    authorization_endpoint: at(OAUTH_ROUTES.authorization),
    token_endpoint: at(OAUTH_ROUTES.token),
    revocation_endpoint: at(OAUTH_ROUTES.revocation),
    introspection_endpoint: at(OAUTH_ROUTES.introspection),
    device_authorization_endpoint: at(OAUTH_ROUTES.device_authorization),
    ...(options.dynamicRegistration ? { registration_endpoint: at(OAUTH_ROUTES.registration), client_id_metadata_document_supported: true } : {}),
    jwks_uri: at(OAUTH_ROUTES.jwks),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    code_challenge_methods_supported: ['S256'],
    id_token_signing_alg_values_supported: ['EdDSA'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...scopes, 'openid', 'offline_access'],
    authorization_response_iss_parameter_supported: true,
    resource_indicators_supported: true,
    protected_resources: [server.resources.api, server.resources.mcp],
  };
  const openid = {
    ...oauth,
    subject_types_supported: ['public'],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'sid', 'scope', 'amr', 'client_id', 'org'],
    access_token_audience: accessTokenAudience(publicUrl),
  };
  return { oauth, openid };
}

export function discoveryRoutes(documents: ReturnType<typeof discoveryDocuments>) {
  return async (app: FastifyInstance) => {
    app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return documents.oauth;
    });
    app.get('/.well-known/openid-configuration', {
      schema: {
        tags: ['Auth'], operationId: 'getOpenIdConfiguration', summary: 'OpenID Connect Discovery metadata: the authorization server, jwks_uri, algorithms',
        response: { 200: OpenIdConfiguration },
      },
    }, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return documents.openid;
    });
  };
}
