import type { RevocationList } from '../../kernel/revocation.js';
import type { AccessClaims, AccessTokens, AccountCache, UserRow } from '../../identity/index.js';
import type { AuthContext } from '../../http/route-config.js';
import { challenge, parseBearer } from '../../http/caller.js';
import { RefusedCredential, type ApiKeyVerifier } from '../../kernel/access-terms/credentials.js';
import { AppError } from '../../kernel/errors.js';
import { awaited, runEager, type Flow } from '../../kernel/eager.js';

// The first steps of every check of a caller: who a credential belongs to, and whether the
// account behind it may act now. resolveCaller (the authenticate step), a stream's last check and
// the routes that read an optional session share them.

export interface CredentialDeps {
  accessTokens: AccessTokens;
  revocations: RevocationList;
  apiKeys: ApiKeyVerifier;
}

/** A refused credential as the 401 its caller gets (with the challenge header). */
export function asChallenge(error: unknown): unknown {
  if (error instanceof AppError && (error.code === 'invalid_token' || error.code === 'token_expired')) return challenge(error.code, error.message);
  return error;
}

/** Who a verified token speaks for: a person's session, or an app under a person's grant for one organization. */
export function tokenContext(claims: AccessClaims): AuthContext {
  const base = { userId: claims.sub, sessionId: claims.sid, scopes: claims.scopes, expiresAt: claims.exp * 1000 };
  return claims.oauth
    ? { ...base, credential: 'oauth_token', orgId: claims.oauth.orgId, clientId: claims.oauth.clientId, resource: claims.oauth.resource }
    : { ...base, credential: 'access_token' };
}

function sessionContext(deps: Pick<CredentialDeps, 'revocations'>, claims: AccessClaims): AuthContext {
  if (deps.revocations.isRevoked(claims.sid)) {
    const what = claims.oauth ? 'The grant of this token has been revoked.' : 'The session of this token has been revoked.';
    throw new RefusedCredential('invalid_token', what, { userId: claims.sub, orgId: claims.oauth?.orgId ?? null, apiKeyId: null });
  }
  return tokenContext(claims);
}

/**
 * Who a credential belongs to: an API key (by prefix) or an access token, each verified behind its
 * cache (a flow for runEager: at once on a hit). Credential errors are thrown as they are: a
 * RefusedCredential names the owner (its request is counted in the owner's usage history).
 */
export function* identify(deps: CredentialDeps, credential: string): Flow<AuthContext> {
  if (credential.startsWith('gth_')) return yield* awaited(deps.apiKeys.verify(credential));
  return sessionContext(deps, yield* awaited(deps.accessTokens.verify(credential)));
}

/** The same, with credential errors as 401 challenges (for routes that authenticate on their own). */
export async function resolveCredential(deps: CredentialDeps, credential: string): Promise<AuthContext> {
  try {
    return await runEager(identify(deps, credential));
  } catch (error) {
    throw asChallenge(error);
  }
}

/**
 * Why the account behind a valid credential may not act now, as every check of a caller answers
 * (resolveCaller, a stream's last check, sessionCaller); undefined: it may. Gone: the credential
 * outlived it. Scheduled for deletion: its sessions and keys were revoked with the request, and
 * this refuses any that slipped past (a key made at that moment) for the whole grace.
 */
export function accountRefusal(account: UserRow | undefined): AppError | undefined {
  if (!account) return challenge('invalid_token', 'The account behind this credential no longer exists.');
  if (account.disabled) return new AppError('account_disabled', 'This account has been disabled; contact support.');
  if (account.deletion_due_at !== null) return challenge('invalid_token', 'This account is scheduled for deletion: sign in again to restore it.');
  return undefined;
}

/**
 * For a public route that one kind of request takes a session for (POST /v1/auth/email/verify
 * with a change of email's link): the user whose access token `authorization` carries, checked as
 * resolveCaller checks a 'session' route's caller (the credential, an API key refused, the account
 * gone, disabled or being deleted), or the error it would answer, with its challenge. Never throws
 * a refusal: the route decides whether the session is needed. `missing` is the detail of the 401
 * when no credential came.
 */
export async function sessionCaller(
  deps: CredentialDeps & { accounts: Pick<AccountCache, 'get'> },
  authorization: string | undefined,
  missing: string,
): Promise<{ userId: string } | { refused: AppError }> {
  if (!authorization) return { refused: challenge('authentication_required', missing) };
  try {
    const auth = await resolveCredential(deps, parseBearer(authorization));
    if (auth.credential !== 'access_token') return { refused: new AppError('session_required', 'This needs an access token from a login, not an API key or an app\'s token.') };
    const refused = accountRefusal(await deps.accounts.get(auth.userId));
    return refused ? { refused } : { userId: auth.userId };
  } catch (error) {
    if (error instanceof AppError) return { refused: error };
    throw error;
  }
}
