import type { RateDecision } from '../modules/limits/rate-limiter.js';
import type { Scope } from '../modules/tokens/scopes.js';
import type { UserRow } from '../modules/users/users.repository.js';

/** Who is calling, resolved once per request by the authenticate hook. */
export interface AuthContext {
  userId: string;
  /** Present for access tokens from a login; null for API keys. */
  sessionId: string | null;
  credential: 'access_token' | 'api_key';
  scopes: ReadonlySet<string>;
  /** The key's id when the credential is an API key. */
  apiKeyId?: string;
}

/**
 * What a route demands, declared in its `config.auth`:
 * - 'session': an access token from a login (account management; API keys get session_required)
 * - a scope: any credential carrying it
 * - 'admin': an access token of a user with role admin
 * - 'any': any valid credential
 */
export type AuthRequirement = 'session' | 'admin' | 'any' | Scope;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /** Per-IP limit group for public endpoints (register, login, refresh, forgot). */
    publicLimit?: string;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The account's budget after this request was counted (set with auth). */
    rateLimit: RateDecision | null;
    /** The caller's account row as authentication loaded it (set with auth). */
    account: UserRow | null;
  }
}
