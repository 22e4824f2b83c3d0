import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { KeyRing } from './signing-keys.js';

export const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object({ kty: Type.String(), crv: Type.String(), x: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String() }, { additionalProperties: false }),
    ),
  },
  { $id: 'Jwks', additionalProperties: false },
);

/** Public keys for verifying access tokens; mounted at /v1/.well-known and at the root. */
export function jwksRoute(keyRing: KeyRing, opts: { hide: boolean }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/.well-known/jwks.json', {
      schema: {
        tags: ['Auth'], operationId: opts.hide ? 'getJwksRoot' : 'getJwks', summary: 'JSON Web Key Set for access tokens', hide: opts.hide,
        response: { 200: Type.Ref('Jwks') },
      },
    }, async (_request, reply) => {
      // Short cache: a rotation must reach verifiers well within an access token's lifetime.
      reply.header('Cache-Control', 'public, max-age=300');
      return keyRing.jwks();
    });
  };
}
