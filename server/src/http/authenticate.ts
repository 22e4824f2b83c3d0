import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { RevocationList } from '../infra/revocation.js';
import type { AccessTokens } from '../modules/tokens/access-tokens.js';
import type { AuthContext, AuthRequirement } from './auth-context.js';
import { AppError } from './error-catalogue.js';
import { problemResponses } from './schemas.js';

export interface ApiKeyVerifier {
  verify(secret: string): Promise<AuthContext>;
}

export interface AuthenticateDeps {
  accessTokens: AccessTokens;
  revocations: RevocationList;
  /** Filled in when API keys exist; until then a `gth_` credential is simply invalid. */
  apiKeys?: ApiKeyVerifier;
}

const REALM = 'Bearer realm="gatehouse"';
const MAX_CREDENTIAL_LENGTH = 4096;

function challenge(code: 'authentication_required' | 'invalid_token' | 'token_expired', detail: string): AppError {
  const header = code === 'authentication_required' ? REALM : `${REALM}, error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`;
  return new AppError(code, detail, { headers: { 'WWW-Authenticate': header } });
}

export async function resolveCredential(deps: AuthenticateDeps, authorization: string | undefined): Promise<AuthContext> {
  if (!authorization) throw challenge('authentication_required', 'Send Authorization: Bearer <API key or access token>.');
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match || match[1]!.length > MAX_CREDENTIAL_LENGTH) throw challenge('invalid_token', 'The Authorization header must be "Bearer <credential>".');
  const credential = match[1]!;
  if (credential.startsWith('gth_')) {
    if (!deps.apiKeys) throw challenge('invalid_token', 'The API key is not valid.');
    return deps.apiKeys.verify(credential).catch((e: unknown) => {
      throw e instanceof AppError ? challenge(e.code === 'token_expired' ? 'token_expired' : 'invalid_token', e.message) : e;
    });
  }
  let claims;
  try {
    claims = await deps.accessTokens.verify(credential);
  } catch (e) {
    if (e instanceof AppError) throw challenge(e.code === 'token_expired' ? 'token_expired' : 'invalid_token', e.message);
    throw e;
  }
  if (deps.revocations.isRevoked(claims.sid)) throw challenge('invalid_token', 'The session of this token has been revoked.');
  return { userId: claims.sub, sessionId: claims.sid, credential: 'access_token', scopes: new Set(claims.scope.split(' ')) };
}

function authorize(auth: AuthContext, requirement: AuthRequirement): void {
  if (requirement === 'any') return;
  if (requirement === 'session') {
    if (auth.credential !== 'access_token') {
      throw new AppError('session_required', 'Account management needs an access token from a login, not an API key.');
    }
    return;
  }
  if (!auth.scopes.has(requirement)) {
    throw new AppError('insufficient_scope', `This credential lacks the ${requirement} scope.`, {
      headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${requirement}"` },
      required_scope: requirement,
    });
  }
}

/**
 * Every route that declares `config.auth` gets the check in onRequest (before the body is even
 * parsed, so anonymous callers cannot make us read bodies), plus the security requirement and
 * the 401/403 responses in its OpenAPI description. Routes cannot forget either half.
 */
export function registerAuthentication(app: FastifyInstance, deps: AuthenticateDeps): void {
  app.decorateRequest('auth', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    const requirement = route.config?.auth;
    if (!requirement) return;
    const check = async (request: FastifyRequest) => {
      const auth = await resolveCredential(deps, request.headers.authorization);
      authorize(auth, requirement);
      request.auth = auth;
    };
    route.onRequest = [check, ...(Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : [])];
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.security = [{ bearerAuth: [] }];
    schema.response = { ...problemResponses([401, 403, 429]), ...(schema.response as object | undefined) };
  });
}

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.auth;
}
