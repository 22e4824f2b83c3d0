import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/db/schema.js';
import type { InvitationRow } from './organizations.presenter.js';

export function createInvitationsRepository(db: Kysely<Database>) {
  return {
    insert: (row: InvitationRow) => db.insertInto('invitations').values(row).execute(),
    findByTokenHash: (hash: string) => db.selectFrom('invitations').selectAll().where('token_hash', '=', hash).executeTakeFirst(),

    /** Pending (neither accepted, revoked nor expired), newest first, ids below `beforeId`. */
    listPending: (orgId: string, nowIso: string, limit: number, beforeId?: string) => {
      let q = db.selectFrom('invitations').selectAll().where('org_id', '=', orgId)
        .where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', nowIso);
      if (beforeId) q = q.where('id', '<', beforeId);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },

    /** Revokes the open invitations to an address (a new one replaces them); returns their ids. */
    revokeOpenTo: async (orgId: string, emailNormalized: string, nowIso: string): Promise<string[]> =>
      (await db.updateTable('invitations').set({ revoked_at: nowIso })
        .where('org_id', '=', orgId).where('email_normalized', '=', emailNormalized).where('accepted_at', 'is', null).where('revoked_at', 'is', null)
        .returning('id').execute()).map((r) => r.id),

    /** Revokes one open invitation; false when there is none with this id in the organization. */
    revoke: async (orgId: string, id: string, nowIso: string): Promise<boolean> =>
      (await db.updateTable('invitations').set({ revoked_at: nowIso })
        .where('org_id', '=', orgId).where('id', '=', id).where('accepted_at', 'is', null).where('revoked_at', 'is', null)
        .executeTakeFirst()).numUpdatedRows > 0n,

    /** Revokes every open invitation of these organizations (they are about to go with the account deleting them). */
    revokeOpenIn: async (orgIds: readonly string[], nowIso: string): Promise<void> => {
      if (orgIds.length === 0) return;
      await db.updateTable('invitations').set({ revoked_at: nowIso })
        .where('org_id', 'in', orgIds).where('accepted_at', 'is', null).where('revoked_at', 'is', null).execute();
    },

    /**
     * Withdraws the open invitations `userId` sent to one of `roles` (the roles they may no
     * longer hand out, once demoted or removed); returns their ids.
     */
    revokeSentBy: async (orgId: string, userId: string, roles: readonly string[], nowIso: string): Promise<string[]> => {
      if (roles.length === 0) return [];
      return (await db.updateTable('invitations').set({ revoked_at: nowIso })
        .where('org_id', '=', orgId).where('invited_by', '=', userId).where('role', 'in', roles as InvitationRow['role'][])
        .where('accepted_at', 'is', null).where('revoked_at', 'is', null)
        .returning('id').execute()).map((r) => r.id);
    },

    /**
     * Spends the invitation: one conditional UPDATE, so of any number of concurrent accepts (on
     * any instance) exactly one changes the row. False: it was used or revoked meanwhile.
     */
    claim: async (id: string, userId: string, nowIso: string): Promise<boolean> =>
      (await db.updateTable('invitations').set({ accepted_at: nowIso, accepted_by: userId })
        .where('id', '=', id).where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', nowIso)
        .executeTakeFirst()).numUpdatedRows > 0n,

    /** Whether an account with this (normalized) address is a member already. */
    isMemberByEmail: async (orgId: string, emailNormalized: string): Promise<boolean> =>
      (await db.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id').select('users.id')
        .where('memberships.org_id', '=', orgId).where('users.email_normalized', '=', emailNormalized).executeTakeFirst()) !== undefined,
  };
}
