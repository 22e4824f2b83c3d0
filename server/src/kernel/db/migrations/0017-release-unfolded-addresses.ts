import type { Kysely } from 'kysely';
import { isEmailAddress, normalizeEmail, releasedAddress } from '../../email-address.js';

/** Rows read per round: a large users table is never held in memory at once. */
const BATCH = 500;

interface UserAddressRow { id: string; email: string; email_normalized: string }

/**
 * Issue 31, defect 4, for the rows written before it was fixed: the old provider path stored any
 * address without spaces, confirmed, with `email_normalized = email.toLowerCase()`, which folds
 * some non-ASCII letters onto ASCII (KELVIN SIGN U+212A → "k"). Such a row holds someone else's
 * address in the unique column: it refuses its owner's registration (email_taken) and accepts the
 * invitations sent to it. Every account whose address fails today's rule (`isEmailAddress`) or is
 * stored in another form than today's `normalizeEmail` gives it up, as a registration takes an
 * address a provider claimed (accounts/unproven-address.ts): it holds `<id>@unclaimed.invalid`,
 * unconfirmed, keeps its sign-in (its provider identity), and sets a real address by a change of
 * email. Its outstanding mailed links die with the address they were sent to. Registration has
 * only ever accepted ASCII, so no account registered with a password is touched.
 *
 * What this cannot do: accounts that providers configured `link_by_email: false` made before,
 * with a well-formed address they stored confirmed. Which provider is trusted for addresses is
 * configuration (OIDC_PROVIDERS), not data, so a migration cannot tell them apart; the operator
 * releases them with `gatehouse users release-provider-addresses <provider>`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const trx = db as unknown as Kysely<{ users: UserAddressRow & { email_verified: number; updated_at: string }; email_tokens: { user_id: string; used_at: string | null } }>;
  const now = new Date().toISOString();
  let after = '';
  for (;;) {
    // Keyset pages by id: each round reads the next BATCH rows whatever was updated before.
    const rows = await trx.selectFrom('users').select(['id', 'email', 'email_normalized']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const unfolded = rows.filter((row) => !isEmailAddress(row.email) || row.email_normalized !== normalizeEmail(row.email));
    for (const { id } of unfolded) {
      const address = releasedAddress(id);
      await trx.updateTable('users').set({ email: address, email_normalized: normalizeEmail(address), email_verified: 0, updated_at: now }).where('id', '=', id).execute();
    }
    if (unfolded.length > 0) {
      await trx.updateTable('email_tokens').set({ used_at: now }).where('user_id', 'in', unfolded.map((row) => row.id)).where('used_at', 'is', null).execute();
    }
  }
}

/** The released addresses are not restored: they were never their accounts' to hold. */
export async function down(): Promise<void> {}
