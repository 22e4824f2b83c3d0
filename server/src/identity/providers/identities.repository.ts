import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, IdentitiesTable, OidcCodesTable, OidcFlowsTable } from '../../kernel/db/schema.js';

export type IdentityRow = Selectable<IdentitiesTable>;
export type OidcCodeRow = Selectable<OidcCodesTable>;

/**
 * Linked identities (always with their owner in the query, but for the lookup a sign-in starts
 * from), the flows under way at providers and the one-time codes. Flows and codes are taken by
 * DELETE … RETURNING: one request gets the row, whoever races for it.
 */
export function createIdentitiesRepository(db: Kysely<Database>) {
  return {
    db,
    listForUser: (userId: string) => db.selectFrom('identities').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute(),
    countForUser: async (userId: string): Promise<number> =>
      Number((await db.selectFrom('identities').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n),
    find: (provider: string, subject: string) =>
      db.selectFrom('identities').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst(),
    insert: async (row: IdentityRow): Promise<void> => {
      await db.insertInto('identities').values(row).execute();
    },
    recordUse: async (id: string, email: string | null, nowIso: string): Promise<void> => {
      await db.updateTable('identities').set({ email, last_used_at: nowIso }).where('id', '=', id).execute();
    },
    remove: (userId: string, id: string) =>
      db.deleteFrom('identities').where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst(),

    /** A new flow; every expired one goes. */
    insertFlow: async (row: Insertable<OidcFlowsTable>): Promise<void> => {
      await db.deleteFrom('oidc_flows').where('expires_at', '<=', row.created_at as string).execute();
      await db.insertInto('oidc_flows').values(row).execute();
    },
    takeFlow: (stateHash: string, nowIso: string) =>
      db.deleteFrom('oidc_flows').where('state_hash', '=', stateHash).where('expires_at', '>', nowIso).returningAll().executeTakeFirst(),

    /** A new code; every expired one goes. */
    insertCode: async (row: Insertable<OidcCodesTable>): Promise<void> => {
      await db.deleteFrom('oidc_codes').where('expires_at', '<=', row.created_at as string).execute();
      await db.insertInto('oidc_codes').values(row).execute();
    },
    takeCode: (codeHash: string, nowIso: string) =>
      db.deleteFrom('oidc_codes').where('code_hash', '=', codeHash).where('expires_at', '>', nowIso).returningAll().executeTakeFirst(),
  };
}
export type IdentitiesRepository = ReturnType<typeof createIdentitiesRepository>;
