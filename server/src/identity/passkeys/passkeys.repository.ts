import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PasskeysTable, WebauthnChallengesTable } from '../../kernel/db/schema.js';

export type PasskeyRow = Selectable<PasskeysTable>;

/** Passkey rows (always with their owner in the query) and the one-time challenges of ceremonies. */
export function createPasskeysRepository(db: Kysely<Database>) {
  return {
    db,
    listForUser: (userId: string) => db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute(),
    countForUser: async (userId: string): Promise<number> =>
      Number((await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n),
    isOwnedBy: async (userId: string, id: string): Promise<boolean> =>
      (await db.selectFrom('passkeys').select('id').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst()) !== undefined,
    findByCredentialId: (credentialId: string) => db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst(),
    insert: async (row: Insertable<PasskeysTable>): Promise<void> => {
      await db.insertInto('passkeys').values(row).execute();
    },
    rename: async (userId: string, id: string, name: string) =>
      db.updateTable('passkeys').set({ name }).where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst(),
    remove: async (trx: Kysely<Database>, userId: string, id: string) =>
      trx.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst(),
    /** A use: the new signature counter, only if it has not moved meanwhile (two logins racing). */
    recordUse: async (id: string, previousCounter: number | string, counter: number, nowIso: string): Promise<boolean> => {
      const used = await db.updateTable('passkeys').set({ counter, last_used_at: nowIso }).where('id', '=', id).where('counter', '=', previousCounter).executeTakeFirst();
      return Number(used.numUpdatedRows) === 1;
    },

    /** A new challenge; every expired one goes (spent ones stay until they expire). */
    insertChallenge: async (row: Omit<Insertable<WebauthnChallengesTable>, 'used_at'>): Promise<void> => {
      await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', row.created_at as string).execute();
      await db.insertInto('webauthn_challenges').values({ ...row, used_at: null }).execute();
    },
    /** Spends a live challenge of this purpose (and user, for registrations): its row once, whoever races for it. */
    takeChallenge: async (hash: string, purpose: 'register' | 'login', userId: string | null, nowIso: string) => {
      let q = db.updateTable('webauthn_challenges').set({ used_at: nowIso })
        .where('token_hash', '=', hash).where('purpose', '=', purpose).where('used_at', 'is', null).where('expires_at', '>', nowIso);
      q = userId === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', userId);
      return q.returning(['challenge']).executeTakeFirst();
    },
  };
}
export type PasskeysRepository = ReturnType<typeof createPasskeysRepository>;
