import type { Kysely, Selectable } from 'kysely';
import type { Database, TotpFactorsTable } from '../../kernel/db/schema.js';

export type TotpFactorRow = Selectable<TotpFactorsTable>;

/** The rows of second factors: an account's TOTP secret, its recovery codes, login challenges. */
export function createMfaRepository(db: Kysely<Database>) {
  return {
    db,
    findTotp: (userId: string) => db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).executeTakeFirst(),

    /** A new secret waiting for its first code; replaces an earlier unconfirmed one, never a confirmed one. */
    async putPendingTotp(userId: string, sealedSecret: string, nowIso: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('totp_factors').where('user_id', '=', userId).where('confirmed_at', 'is', null).execute();
        const inserted = await trx.insertInto('totp_factors').values({ user_id: userId, secret: sealedSecret, created_at: nowIso, confirmed_at: null, last_used_step: null })
          .onConflict((oc) => oc.column('user_id').doNothing()).executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
      });
    },

    /**
     * Accepts a code's time step once: only if it is newer than every step accepted before, in
     * one conditional UPDATE, so two requests racing with the same code cannot both win (on any
     * number of instances). `confirm` also turns on the pending factor whose secret the code was
     * checked against (not one a concurrent enrolment put in its place). `q`: the database or a
     * transaction.
     */
    async acceptStep(q: Kysely<Database>, userId: string, step: number, options: { confirm?: { at: string; secret: string } } = {}): Promise<boolean> {
      const { confirm } = options;
      let update = q.updateTable('totp_factors').set(confirm ? { last_used_step: step, confirmed_at: confirm.at } : { last_used_step: step })
        .where('user_id', '=', userId)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]));
      update = confirm ? update.where('confirmed_at', 'is', null).where('secret', '=', confirm.secret) : update.where('confirmed_at', 'is not', null);
      return Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
    },

    /** Replaces every recovery code of the account with these hashes. */
    async replaceRecoveryCodes(trx: Kysely<Database>, userId: string, hashes: string[], nowIso: string): Promise<void> {
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ code_hash, user_id: userId, created_at: nowIso, used_at: null }))).execute();
    },

    /** Spends a recovery code: true once per code, whoever races for it. */
    async useRecoveryCode(userId: string, hash: string, nowIso: string): Promise<boolean> {
      const used = await db.updateTable('recovery_codes').set({ used_at: nowIso }).where('code_hash', '=', hash).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirst();
      return Number(used.numUpdatedRows) === 1;
    },

    async unusedRecoveryCodes(userId: string): Promise<number> {
      const row = await db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Removes the account's factor (on or pending), its recovery codes and open challenges; says what the factor was. */
    async removeFactor(trx: Kysely<Database>, userId: string): Promise<'enabled' | 'pending' | null> {
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('mfa_challenges').where('user_id', '=', userId).execute();
      const removed = await trx.deleteFrom('totp_factors').where('user_id', '=', userId).returning('confirmed_at').executeTakeFirst();
      return removed === undefined ? null : removed.confirmed_at === null ? 'pending' : 'enabled';
    },

    /** A new challenge; the account's spent and expired ones go (so the table holds only live ones). */
    insertChallenge: async (row: { token_hash: string; user_id: string; amr: string; created_at: string; expires_at: string; pending_link: string | null }): Promise<void> => {
      await db.deleteFrom('mfa_challenges').where('user_id', '=', row.user_id)
        .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', row.created_at)])).execute();
      await db.insertInto('mfa_challenges').values({ ...row, used_at: null }).execute();
    },
    findLiveChallenge: (hash: string, nowIso: string) =>
      db.selectFrom('mfa_challenges').selectAll().where('token_hash', '=', hash).where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst(),
    /** Claims a live challenge: true once, whoever races for it. */
    async claimChallenge(hash: string, nowIso: string): Promise<boolean> {
      const used = await db.updateTable('mfa_challenges').set({ used_at: nowIso }).where('token_hash', '=', hash).where('used_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirst();
      return Number(used.numUpdatedRows) === 1;
    },
    /** Gives a claimed challenge back (the code was wrong): the login can try again while it lives. */
    async releaseChallenge(hash: string): Promise<void> {
      await db.updateTable('mfa_challenges').set({ used_at: null }).where('token_hash', '=', hash).execute();
    },
  };
}
export type MfaRepository = ReturnType<typeof createMfaRepository>;
