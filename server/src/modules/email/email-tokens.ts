import type { Kysely } from 'kysely';
import { AppError } from '../../core/errors.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import type { Database } from '../../infra/db/schema.js';
import { newOpaqueToken, sha256Hex } from '../tokens/opaque-tokens.js';

export type EmailTokenPurpose = 'verify_email' | 'reset_password';

const PREFIX: Record<EmailTokenPurpose, string> = { verify_email: 'gthv_', reset_password: 'gthp_' };
export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenPurpose, number> = { verify_email: 24 * 3600_000, reset_password: 3600_000 };

/**
 * Single-use tokens sent by mail. Only the SHA-256 is stored; consuming one is a conditional
 * update (used_at is null and not expired), so a token works exactly once even when two
 * requests race with it.
 */
export function createEmailTokens(deps: { db: Kysely<Database>; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async issue(trx: Kysely<Database>, userId: string, purpose: EmailTokenPurpose, email: string): Promise<string> {
      const token = newOpaqueToken(PREFIX[purpose]);
      const now = clock.now();
      await trx.insertInto('email_tokens').values({
        token_hash: sha256Hex(token), user_id: userId, purpose, email,
        created_at: isoTime(now), expires_at: isoTime(now + EMAIL_TOKEN_TTL_MS[purpose]), used_at: null,
      }).execute();
      return token;
    },

    /** Returns the token's user and email, or throws invalid_token (unknown, used, expired, other purpose). */
    async consume(trx: Kysely<Database>, token: string, purpose: EmailTokenPurpose): Promise<{ userId: string; email: string }> {
      const invalid = new AppError('invalid_token', 'This link is not valid any more: it was used, has expired, or was mistyped. Ask for a new one.');
      if (!token.startsWith(PREFIX[purpose]) || token.length > 100) throw invalid;
      const hash = sha256Hex(token);
      const nowIso = isoTime(clock.now());
      const row = await trx.selectFrom('email_tokens').select(['user_id', 'email']).where('token_hash', '=', hash).where('purpose', '=', purpose).executeTakeFirst();
      if (!row) throw invalid;
      const used = await trx.updateTable('email_tokens').set({ used_at: nowIso })
        .where('token_hash', '=', hash).where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) throw invalid;
      // One reset ends every other outstanding one for this account.
      await trx.updateTable('email_tokens').set({ used_at: nowIso }).where('user_id', '=', row.user_id).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
      return { userId: row.user_id, email: row.email };
    },
  };
}
export type EmailTokens = ReturnType<typeof createEmailTokens>;
