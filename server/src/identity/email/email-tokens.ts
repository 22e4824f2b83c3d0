import type { Kysely } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';

/** `change_email`: confirms a new address for the account (`email` is the new address). */
export type EmailTokenPurpose = 'verify_email' | 'reset_password' | 'change_email';

// A change of email is confirmed like any address (POST /v1/auth/email/verify), so its token has
// the verification prefix: one kind of link, and the log redaction already knows its shape.
const PREFIX: Record<EmailTokenPurpose, string> = { verify_email: 'gthv_', reset_password: 'gthp_', change_email: 'gthv_' };
/** A live token as `consume` found it: whose, the address it is for, and what it does. */
export interface ConsumedToken<P extends EmailTokenPurpose = EmailTokenPurpose> {
  userId: string;
  email: string;
  purpose: P;
}

export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenPurpose, number> = { verify_email: 24 * 3600_000, reset_password: 3600_000, change_email: 24 * 3600_000 };

/**
 * Single-use tokens sent by mail. Only the SHA-256 is stored; consuming one is a conditional
 * update (used_at is null and not expired), so a token works exactly once even when two
 * requests race with it.
 */
export function createEmailTokens(deps: { db: Kysely<Database>; clock: Clock }) {
  const { db, clock } = deps;
  /** Marks the account's unused tokens of these purposes spent (a newer one, or a change, replaced them). */
  async function voidPending(trx: Kysely<Database>, userId: string, purposes: readonly EmailTokenPurpose[]): Promise<void> {
    await trx.updateTable('email_tokens').set({ used_at: isoTime(clock.now()) }).where('user_id', '=', userId).where('purpose', 'in', purposes).where('used_at', 'is', null).execute();
  }
  return {
    voidPending,

    async issue(trx: Kysely<Database>, userId: string, purpose: EmailTokenPurpose, email: string): Promise<string> {
      const token = newOpaqueToken(PREFIX[purpose]);
      const now = clock.now();
      await trx.insertInto('email_tokens').values({
        token_hash: sha256Hex(token), user_id: userId, purpose, email,
        created_at: isoTime(now), expires_at: isoTime(now + EMAIL_TOKEN_TTL_MS[purpose]), used_at: null,
      }).execute();
      return token;
    },

    /**
     * Returns the token's user, email and purpose (one of `purposes`), or throws invalid_token
     * (unknown, used, expired, another purpose). `guard` sees a live token before it is spent:
     * what it throws is thrown as it is and leaves the token unspent, so a refused holder (a
     * change of email's link followed without the owner's session) does not use it up for the
     * owner.
     */
    async consume<P extends EmailTokenPurpose>(
      trx: Kysely<Database>, token: string, purposes: readonly P[], guard?: (found: ConsumedToken<P>) => void | Promise<void>,
    ): Promise<ConsumedToken<P>> {
      const invalid = new AppError('invalid_token', 'This link is not valid any more: it was used, has expired, or was mistyped. Ask for a new one.');
      if (!purposes.some((p) => token.startsWith(PREFIX[p])) || token.length > 100) throw invalid;
      const hash = sha256Hex(token);
      const nowIso = isoTime(clock.now());
      const row = await trx.selectFrom('email_tokens').select(['user_id', 'email', 'purpose', 'used_at', 'expires_at'])
        .where('token_hash', '=', hash).where('purpose', 'in', purposes).executeTakeFirst();
      // A dead link is said to be dead before the guard asks anything of its holder (signing in for nothing).
      if (!row || row.used_at !== null || row.expires_at <= nowIso) throw invalid;
      const found: ConsumedToken<P> = { userId: row.user_id, email: row.email, purpose: row.purpose as P };
      await guard?.(found);
      // Conditional: of two requests racing with one token, exactly one spends it.
      const used = await trx.updateTable('email_tokens').set({ used_at: nowIso })
        .where('token_hash', '=', hash).where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) throw invalid;
      const { purpose } = found;
      // One reset (or change of email) ends every other outstanding one for this account.
      await voidPending(trx, row.user_id, [purpose]);
      return found;
    },
  };
}
export type EmailTokens = ReturnType<typeof createEmailTokens>;
