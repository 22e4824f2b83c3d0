import type { FastifyRequest } from 'fastify';
import type { AuthContext, Membership } from '../kernel/access-terms/credentials.js';
import { AppError } from '../kernel/errors.js';

// The caller as a route reads it: the parsed credential, the organization and the role (set by
// access/'s authenticate step on every route that declares `config.auth`), and the one parser of
// the Authorization header.

export const REALM = 'Bearer realm="gatehouse"';
const MAX_CREDENTIAL_LENGTH = 4096;

export function challenge(code: 'authentication_required' | 'invalid_token' | 'token_expired', detail: string): AppError {
  const header = code === 'authentication_required' ? REALM : `${REALM}, error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`;
  return new AppError(code, detail, { headers: { 'WWW-Authenticate': header } });
}

/**
 * The one parser of the Authorization header: `Bearer <credential>` (scheme in any case, spaces
 * around the credential tolerated); anything else is a 401 with a challenge.
 */
export function parseBearer(authorization: string | undefined): string {
  if (!authorization) throw challenge('authentication_required', 'Send Authorization: Bearer <API key or access token>.');
  const match = BEARER.exec(authorization);
  if (!match || match[1]!.length > MAX_CREDENTIAL_LENGTH) throw challenge('invalid_token', 'The Authorization header must be "Bearer <credential>".');
  return match[1]!;
}
const BEARER = /^Bearer +(\S+) *$/i;

/** The parsed credential of the caller (the authenticate step set it). */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.auth;
}

/** The organization the request acts for and the caller's role in it (cached at most ACCOUNT_CACHE_TTL_MS). */
export function requireOrganization(request: FastifyRequest): Membership {
  if (!request.organization) throw new AppError('internal_error', 'route used auth without declaring it');
  return request.organization;
}

/** The id of the organization the request acts for: what every organization-owned query is scoped by. */
export function actingOrgId(request: FastifyRequest): string {
  return requireOrganization(request).org.id;
}
