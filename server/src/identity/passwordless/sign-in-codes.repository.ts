import type { Kysely, Selectable } from 'kysely';
import type { Database, SignInCodesTable } from '../../kernel/db/schema.js';

export type SignInCodeRow = Selectable<SignInCodesTable>;

/** The `sign_in_codes` rows of passwordless sign-in (migration 0020). Every spend is conditional. */
export function createSignInCodesRepository(db: Kysely<Database>) {
  return {
    db,
    /** A new code for the address: its older live ones are spent, and expired rows of anyone go. */
    async replace(row: SignInCodeRow): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('sign_in_codes').where('expires_at', '<=', row.created_at).execute();
        await trx.updateTable('sign_in_codes').set({ used_at: row.created_at })
          .where('email_normalized', '=', row.email_normalized).where('used_at', 'is', null).execute();
        await trx.insertInto('sign_in_codes').values(row).execute();
      });
    },

    /** The address's newest code that may still be tried (a new request spent the older ones). */
    live: (emailNormalized: string, nowIso: string, maxFailures: number) =>
      db.selectFrom('sign_in_codes').selectAll().where('email_normalized', '=', emailNormalized)
        .where('used_at', 'is', null).where('expires_at', '>', nowIso).where('failed_attempts', '<', maxFailures)
        .orderBy('created_at', 'desc').limit(1).executeTakeFirst(),

    byTokenHash: (tokenHash: string, nowIso: string) =>
      db.selectFrom('sign_in_codes').selectAll().where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst(),

    /** Spends the code (and its link with it); false when another request spent it first. */
    async spend(id: string, nowIso: string): Promise<boolean> {
      const result = await db.updateTable('sign_in_codes').set({ used_at: nowIso })
        .where('id', '=', id).where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** One more wrong guess at this code; past the limit, `live` no longer offers it. */
    async countFailure(id: string): Promise<void> {
      await db.updateTable('sign_in_codes').set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) })).where('id', '=', id).execute();
    },
  };
}
export type SignInCodesRepository = ReturnType<typeof createSignInCodesRepository>;
