import { budgetKeyOf } from '../usage/budget-key.js';
import { tokenContext } from '../caller/credential.js';
import type { ApiKeyVerifier, AuthContext } from '../../kernel/access-terms/credentials.js';
import type { UsageCounter, UsageOutcome } from '../usage/usage-counter.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { AppError } from '../../kernel/errors.js';
import { limitsFor } from '../../kernel/access-terms/tiers.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { RevocationList } from '../../kernel/revocation.js';
import type { OrganizationCache } from '../organizations/organization-cache.js';
import { ROLE_SCOPES } from '../../kernel/access-terms/roles.js';
import { isServiceScope } from '../../kernel/access-terms/scopes.js';
import type { AccessTokens, AccountCache } from '../../identity/index.js';
import type { BudgetState, RateLimiter } from '../../kernel/limits/limiter.js';

/** Why a credential is or is not good for a call, as POST /v1/auth/verify answers it. */
export const VERIFICATION_CODES = ['valid', 'not_found', 'revoked', 'expired', 'disabled', 'insufficient_scope', 'rate_limited', 'usage_exceeded'] as const;
export type VerificationCode = (typeof VERIFICATION_CODES)[number];

export interface VerificationInput {
  credential: string;
  /** Every one of them must be held. */
  scopes?: string[];
  /** false: look only, spend nothing (neither budget nor uses) and leave no trace in the history. */
  count?: boolean;
  cost?: number;
}

export interface Verification {
  valid: boolean;
  code: VerificationCode;
  credential_type: 'api_key' | 'access_token' | 'oauth_token' | null;
  user_id: string | null;
  key_id: string | null;
  session_id: string | null;
  scopes: string[];
  expires_at: string | null;
  remaining: number | null;
  ratelimit: { minute: Window; day: Window; retry_after: number } | null;
}

interface Window {
  limit: number;
  remaining: number;
  reset_seconds: number;
}

export interface VerificationDeps {
  apiKeys: Pick<ApiKeyVerifier, 'inspect'>;
  keyUses: Pick<ApiKeysService, 'spendUses' | 'usesLeft'>;
  accessTokens: AccessTokens;
  revocations: RevocationList;
  accounts: AccountCache;
  organizations: Pick<OrganizationCache, 'get'>;
  limiter: RateLimiter;
  usage: Pick<UsageCounter, 'record'>;
  clock: Clock;
}

const NOBODY = { credential_type: null, user_id: null, key_id: null, session_id: null, scopes: [] as string[], expires_at: null, remaining: null, ratelimit: null };

const window = (w: BudgetState['minute']): Window => ({ limit: w.limit, remaining: w.remaining, reset_seconds: w.resetSeconds });

/**
 * Answers for the platform's own services whether a credential may make a call, exactly as the
 * authenticate step would decide it: the same caches, revocations (so a revoked session's token
 * is refused, which a JWKS check alone cannot do), account state, scopes, and the same budget and
 * uses, spent unless `count: false`. Always an answer, never a 401: the reason is in `code`.
 */
export function createVerificationService(deps: VerificationDeps) {
  /** The credential's owner and claims, or the code that ends the check. */
  async function identify(credential: string, count: boolean): Promise<{ auth: AuthContext } | Verification> {
    if (credential.startsWith('gth_')) {
      const found = await deps.apiKeys.inspect(credential);
      if (found.status === 'valid') return { auth: found.auth };
      if (found.status === 'expired') {
        if (count) deps.usage.record(found.auth.orgId!, found.auth.apiKeyId!, 'unauthorized');
        return refused('expired', found.auth);
      }
      return { valid: false, code: found.status, ...NOBODY };
    }
    let claims;
    try {
      claims = await deps.accessTokens.verify(credential);
    } catch (error) {
      if (error instanceof AppError && error.code === 'token_expired') return { valid: false, code: 'expired', ...NOBODY, credential_type: 'access_token' };
      if (error instanceof AppError && error.code === 'invalid_token') return { valid: false, code: 'not_found', ...NOBODY };
      throw error;
    }
    const auth: AuthContext = tokenContext(claims);
    // A token bound to the MCP endpoint is no credential for the platform's REST services (RFC 8707).
    if (auth.resource === 'mcp') return { valid: false, code: 'not_found', ...NOBODY };
    if (deps.revocations.isRevoked(claims.sid)) {
      const personal = (await deps.accounts.get(auth.userId))?.personal_org_id;
      if (count && personal !== undefined) deps.usage.record(personal, null, 'unauthorized');
      return refused('revoked', auth);
    }
    return { auth };
  }

  function describe(auth: AuthContext): Omit<Verification, 'valid' | 'code' | 'remaining' | 'ratelimit'> {
    return {
      credential_type: auth.credential, user_id: auth.userId, key_id: auth.apiKeyId ?? null, session_id: auth.sessionId,
      scopes: [...auth.scopes], expires_at: auth.expiresAt === null ? null : isoTime(auth.expiresAt),
    };
  }

  function refused(code: VerificationCode, auth: AuthContext, extra: Partial<Verification> = {}): Verification {
    return { valid: false, code, ...describe(auth), remaining: null, ratelimit: null, ...extra };
  }

  return {
    async verify(input: VerificationInput): Promise<Verification> {
      const count = input.count !== false;
      const cost = input.cost ?? 1;
      const found = await identify(input.credential, count);
      if (!('auth' in found)) return found;
      const { auth } = found;
      const keyId = auth.apiKeyId ?? null;
      const account = await deps.accounts.get(auth.userId);
      if (!account) return { valid: false, code: 'not_found', ...NOBODY };
      // A key acts for its organization; a token, verified without a header, for its user's personal one.
      const orgId = auth.orgId ?? account.personal_org_id;
      const record = (outcome: UsageOutcome) => count && deps.usage.record(orgId, keyId, outcome);
      if (account.disabled) {
        record('forbidden');
        return refused('disabled', auth);
      }
      const membership = await deps.organizations.get(orgId, auth.userId);
      // The key's creator left the organization: the key no longer acts for it.
      if (!membership) {
        record('forbidden');
        return refused('revoked', auth);
      }
      // Scopes as the request would have them: the credential's, within its member's role.
      if (input.scopes?.some((scope) => !auth.scopes.has(scope) || (!isServiceScope(scope) && !ROLE_SCOPES[membership.role].has(scope)))) {
        record('forbidden');
        return refused('insufficient_scope', auth);
      }
      const limits = limitsFor(membership.org);
      if (!count) {
        const [state, remaining] = await Promise.all([
          deps.limiter.peek(budgetKeyOf(membership), limits, auth.keyBudget),
          auth.usesLimited ? deps.keyUses.usesLeft(keyId!) : Promise.resolve(null),
        ]);
        // Whether a call of `cost` would be admitted now, without making it.
        const short = [state.minute, state.day].find((w) => w.remaining < cost);
        const ratelimit = { minute: window(state.minute), day: window(state.day), retry_after: short ? Math.max(1, short.nextSeconds) : 0 };
        if (short) return refused('rate_limited', auth, { remaining, ratelimit });
        if (remaining !== null && remaining < cost) return refused('usage_exceeded', auth, { remaining, ratelimit });
        return { valid: true, code: 'valid', ...describe(auth), remaining, ratelimit };
      }
      const options = { cost, key: auth.keyBudget };
      const budget = budgetKeyOf(membership); // a free team's is its owner's free-teams budget (access/usage/budget-key.ts)
      const decision = await deps.limiter.consume(budget, limits, options);
      const ratelimit = { minute: window(decision.minute), day: window(decision.day), retry_after: decision.retryAfterSeconds };
      if (!decision.allowed) {
        record('rate_limited');
        return refused('rate_limited', auth, { ratelimit });
      }
      let remaining: number | null = null;
      if (auth.usesLimited) {
        const spent = await deps.keyUses.spendUses(keyId!, cost);
        if (!('remaining' in spent)) {
          record('rate_limited');
          return refused('usage_exceeded', auth, { remaining: 0, ratelimit: { ...ratelimit, retry_after: spent.retryAfterSeconds ?? 0 } });
        }
        remaining = spent.remaining;
      }
      record('ok');
      return { valid: true, code: 'valid', ...describe(auth), remaining, ratelimit };
    },
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;
