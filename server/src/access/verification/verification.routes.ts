import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { StringEnum, Timestamp, problemResponses } from '../../http/schemas.js';
import { USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { VERIFICATION_CODES, type VerificationService } from './verification.service.js';

const Window = Type.Object(
  { limit: Type.Integer(), remaining: Type.Integer(), reset_seconds: Type.Integer() },
  { additionalProperties: false },
);

export const CredentialVerification = Type.Object(
  {
    valid: Type.Boolean({ description: 'Whether the credential may make the call (code "valid")' }),
    code: StringEnum(VERIFICATION_CODES, {
      description: 'valid; not_found (unknown, malformed or badly signed); revoked (key revoked, session of the token revoked); expired (key or token expired, or a rolled secret past its grace); disabled (account); insufficient_scope; rate_limited (the account\'s or the key\'s own budget); usage_exceeded (the key has no uses left)',
    }),
    credential_type: Type.Union([StringEnum(['api_key', 'access_token', 'oauth_token'] as const), Type.Null()]),
    user_id: Type.Union([Type.String(), Type.Null()]),
    key_id: Type.Union([Type.String(), Type.Null()]),
    session_id: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
    expires_at: Type.Union([Timestamp, Type.Null()]),
    remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'Uses the key has left (null: unlimited, or not a key)' }),
    ratelimit: Type.Union([
      Type.Object({ minute: Window, day: Window, retry_after: Type.Integer({ description: 'Seconds until a call fits again (0 when this one did)' }) }, {
        additionalProperties: false, description: "Per window, the tighter of the account's budget and the key's own, after this check",
      }),
      Type.Null(),
    ]),
  },
  { $id: 'CredentialVerification', additionalProperties: false },
);

const VerifyBody = Type.Object(
  {
    credential: Type.String({ minLength: 1, maxLength: 4096, description: 'An API key (gth_…) or an access token' }),
    scopes: Type.Optional(Type.Array(StringEnum(USER_SCOPES), { maxItems: USER_SCOPES.length, uniqueItems: true, description: 'Scopes the call needs: all must be held' })),
    count: Type.Optional(Type.Boolean({ default: true, description: 'false: only look (would a call of `cost` be admitted now?); spend neither budget nor uses, and leave no trace in the usage history' })),
    cost: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1, description: 'Requests (and uses) this call counts as' })),
  },
  { additionalProperties: false },
);

/**
 * POST /v1/auth/verify: for the platform's own services (agent runtimes, tools), with a service
 * key. The caller's budget is not spent (`caller-free`); the verified credential's is.
 */
export const verificationRoutes: FastifyPluginAsyncTypebox<{ verification: VerificationService }> = async (app, { verification }) => {
  app.post('/auth/verify', {
    config: { auth: 'credentials:verify', budget: 'caller-free' },
    schema: {
      tags: ['Auth'], operationId: 'verifyCredential',
      summary: "Check another credential for a service: its owner, scopes and budget, spending from that budget",
      description: 'Needs a service key (scope credentials:verify, created by an administrator). The answer is 200 whatever the credential is worth; `code` says why it is not valid. Access tokens of a revoked session are refused here, which a JWKS check alone cannot do.',
      body: VerifyBody,
      response: { 200: Type.Ref('CredentialVerification'), ...problemResponses([400, 413, 415]) },
    },
  }, async (request) => verification.verify(request.body));
};
