import { AppError } from '../errors.js';

/**
 * The scopes of the platform's routes. Access tokens from a login carry them all; an
 * API key carries those chosen at its creation (default: all of these).
 */
export const USER_SCOPES = [
  'agents:read',
  'agents:write',
  'chats:read',
  'chats:write',
  'webhooks:read',
  'webhooks:write',
  'usage:read',
] as const;
export type UserScope = (typeof USER_SCOPES)[number];

/**
 * Scopes of service keys: API keys an administrator creates for the platform's own services
 * (`credentials:verify`: POST /v1/auth/verify). Never in an access token, never in a key's
 * defaults, and only working while the key's owner is still an administrator.
 */
export const SERVICE_SCOPES = ['credentials:verify'] as const;

/** Every scope an API key can carry, in the canonical order keys store them. */
export const KEY_SCOPES = [...USER_SCOPES, ...SERVICE_SCOPES] as const;
export type Scope = (typeof KEY_SCOPES)[number];

const USER_SCOPE_SET: ReadonlySet<string> = new Set(USER_SCOPES);

/** A scope of the platform's routes (what an access token, a key or an app's grant may hold). */
export function isUserScope(scope: string): scope is UserScope {
  return USER_SCOPE_SET.has(scope);
}

export function isServiceScope(scope: string): boolean {
  return (SERVICE_SCOPES as readonly string[]).includes(scope);
}

/**
 * 403 unless a user whose role on the service is `serviceRole` may hold every one of `scopes`:
 * service scopes are an administrator's alone. Asked of the scopes a key is created or narrowed
 * to, and of the scopes a key holds when someone changes or rolls it.
 */
export function assertMayHoldScopes(scopes: readonly string[], serviceRole: string): void {
  if (serviceRole !== 'admin' && scopes.some(isServiceScope)) {
    throw new AppError('forbidden', 'Service keys (scope credentials:verify) are for administrators only: only one may create, change or roll them.');
  }
}
