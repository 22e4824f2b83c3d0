import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accessTokenAudience } from './access-tokens.js';

export const OpenIdConfiguration = Type.Object(
  {
    issuer: Type.String({ description: 'The `iss` of every access token: PUBLIC_URL' }),
    jwks_uri: Type.String(),
    token_endpoint: Type.String({ description: 'The password grant as a form post (POST /v1/auth/login); refresh tokens go to POST /v1/auth/refresh' }),
    grant_types_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    subject_types_supported: Type.Array(Type.String()),
    id_token_signing_alg_values_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    claims_supported: Type.Array(Type.String()),
    /** Not in OpenID Connect Discovery: the `aud` access tokens carry, for verifiers to check. */
    access_token_audience: Type.String({ description: 'The `aud` of every access token: PUBLIC_URL/v1' }),
  },
  { additionalProperties: false },
);

/**
 * OpenID Connect Discovery metadata, so other services verify Gatehouse's access tokens with
 * standard libraries: they fetch this document from the issuer, then its `jwks_uri`, and check
 * `iss`, `aud` and the EdDSA signature. It lists only what exists: Gatehouse is not an
 * authorization server for other apps (no authorize endpoint, no ID tokens), so
 * `response_types_supported` is `none` (nothing is issued by redirect) and the only grant at the
 * token endpoint is `password`.
 */
export function openIdConfigurationRoute(publicUrl: string, scopes: readonly string[]): FastifyPluginAsyncTypebox {
  const document = {
    issuer: publicUrl,
    jwks_uri: `${publicUrl}/.well-known/jwks.json`,
    token_endpoint: `${publicUrl}/v1/auth/login`,
    grant_types_supported: ['password'],
    response_types_supported: ['none'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['EdDSA'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...scopes],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'sid', 'scope', 'amr'],
    access_token_audience: accessTokenAudience(publicUrl),
  };
  return async (app) => {
    app.get('/.well-known/openid-configuration', {
      schema: {
        tags: ['Auth'], operationId: 'getOpenIdConfiguration', summary: 'OpenID Connect Discovery metadata (issuer, jwks_uri, algorithms)',
        response: { 200: OpenIdConfiguration },
      },
    }, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return document;
    });
  };
}
