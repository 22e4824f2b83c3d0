/** Who is calling, resolved once per request by the authenticate hook. */
export interface AuthContext {
  userId: string;
  /** Present for access tokens from a login; null for API keys. */
  sessionId: string | null;
  credential: 'access_token' | 'api_key';
  scopes: ReadonlySet<string>;
  /** The key's id when the credential is an API key. */
  apiKeyId?: string;
  /** The SHA-256 (hex) the key is stored under, as revocations name it. */
  apiKeyHash?: string;
  /** When the credential stops authenticating (epoch ms); null: never (a key without expiry). */
  expiresAt: number | null;
}

/** Turns an API key's secret into its AuthContext (modules/api-keys/api-key-verifier.ts), for the authenticate step. */
export interface ApiKeyVerifier {
  verify(secret: string): Promise<AuthContext>;
  /** A key verified before, without a promise; undefined when not cached. Throws for junk. */
  verifyCached(secret: string): AuthContext | undefined;
}
