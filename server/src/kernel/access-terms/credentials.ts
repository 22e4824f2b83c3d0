import { AppError } from '../errors.js';
import type { Selectable } from 'kysely';
import type { OrganizationsTable } from '../db/schema.js';
import type { OrgRole } from './roles.js';
import type { Limits } from './tiers.js';
import type { Eventually } from '../eager.js';

/** Who is calling, resolved once per request by the authenticate hook. */
export interface AuthContext {
  /** The user acting: the access token's, or the member who created the API key. */
  userId: string;
  /** The organization an API key or an app's OAuth token acts for (an access token chooses its own per request). */
  orgId?: string;
  /** The session of an access token from a login, the grant of an app's OAuth token; null for API keys. */
  sessionId: string | null;
  /** `oauth_token`: an app's token under a person's grant (scoped, one organization, never account management). */
  credential: 'access_token' | 'api_key' | 'oauth_token';
  /** The app an OAuth token was issued to. */
  clientId?: string;
  /** What an OAuth token is bound to (RFC 8707): the REST API, or the MCP endpoint; absent for the other credentials (REST API only). */
  resource?: 'api' | 'mcp';
  scopes: ReadonlySet<string>;
  /** The key's id when the credential is an API key. */
  apiKeyId?: string;
  /** The SHA-256 (hex) the key is stored under, as revocations name it. */
  apiKeyHash?: string;
  /** When the credential stops authenticating (epoch ms); null: never (a key without expiry). */
  expiresAt: number | null;
  /** An API key's own budget, spent with its account's (absent: only the account's applies). */
  keyBudget?: { id: string; limits: Limits };
  /** The key has a number of uses: each admitted request spends one (api_keys.remaining). */
  usesLimited?: boolean;
}

/**
 * A credential refused although it names its owner (an expired key, an old secret past its
 * grace, a token of a revoked session): the usage history counts it as `unauthorized`.
 */
export class RefusedCredential extends AppError {
  constructor(
    code: 'invalid_token' | 'token_expired',
    detail: string,
    /** orgId null: an access token's (it names no organization; the history counts it for the user's personal one). */
    readonly owner: { userId: string; orgId: string | null; apiKeyId: string | null },
  ) {
    super(code, detail);
  }
}

/** What a key's secret is, for POST /v1/auth/verify, which answers with a reason instead of a 401. */
export type KeyInspection =
  | { status: 'valid' | 'expired'; auth: AuthContext }
  | { status: 'not_found' | 'revoked' };

/** Turns an API key's secret into its AuthContext (access/api-keys/api-key-verifier.ts), for the authenticate step. */
export interface ApiKeyVerifier {
  /**
   * The key's context: at once for a key (or a refusal) the cache knows, else after its read.
   * Refuses with invalid_token (junk, unknown, revoked) or a RefusedCredential (expired), thrown
   * at once or rejected.
   */
  verify(secret: string): Eventually<AuthContext>;
  /** The same lookup, answering why a key does not authenticate instead of throwing. */
  inspect(secret: string): Eventually<KeyInspection>;
}

/** What a request acts as within an organization: the organization's row and the caller's role in it. */
export interface Membership {
  org: Selectable<OrganizationsTable>;
  role: OrgRole;
  /**
   * The user id of a team's earliest owner still a member (null for a personal organization, or
   * none found): whose free-teams budget a free team spends (access/usage/budget-key.ts). Cached with the
   * row: a change of owners shows within the cache's lifetime.
   */
  teamOwner: string | null;
}
