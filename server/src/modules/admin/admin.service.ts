import { AppError } from '../../core/errors.js';
import { toPage } from '../../core/pagination.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { AccountCache } from '../accounts/account-cache.js';
import { changeTier, type CustomLimits, type Tier } from '../../core/tiers.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { normalizeEmail, type UserRow } from '../users/users.repository.js';

export interface AdminUserChanges {
  tier?: Tier;
  /** Custom numbers for this account; null returns it to its tier's defaults. */
  limits?: CustomLimits | null;
  disabled?: boolean;
}

export function createAdminService(deps: { db: Kysely<Database>; accounts: AccountCache; sessions: SessionsService; clock: Clock }) {
  const { db, accounts, sessions, clock } = deps;
  return {
    async list(filter: { email?: string }, limit: number, cursor?: string): Promise<{ rows: UserRow[]; nextCursor: string | null }> {
      let q = db.selectFrom('users').selectAll();
      if (filter.email) q = q.where('email_normalized', '=', normalizeEmail(filter.email));
      if (cursor) q = q.where('id', '<', cursor);
      return toPage(await q.orderBy('id', 'desc').limit(limit + 1).execute(), limit);
    },

    /** Takes effect on the account's next request on every instance (the bus drops cached copies). */
    async update(userId: string, changes: AdminUserChanges): Promise<UserRow> {
      const row = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
      if (!row) throw new AppError('not_found', 'No user with this id.');
      const next: Partial<UserRow> = { updated_at: isoTime(clock.now()) };
      if (changes.tier !== undefined || changes.limits !== undefined) Object.assign(next, changeTier(row, changes));
      if (changes.disabled !== undefined) next.disabled = changes.disabled ? 1 : 0;
      await db.updateTable('users').set(next).where('id', '=', userId).execute();
      await accounts.changed(userId);
      // A disabled account is signed out everywhere; re-enabling does not bring sessions back.
      if (changes.disabled) await sessions.revokeAll(userId, 'account_disabled');
      return { ...row, ...next };
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
