import { AppError } from '../../core/errors.js';
import { toPage } from '../../core/pagination.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { AccountCache } from '../accounts/account-cache.js';
import { changeTier, type CustomLimits, type Tier } from '../../core/tiers.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { createUsersRepository, type UserWithPlan } from '../users/users.repository.js';
import type { OrganizationCache } from '../organizations/organization-cache.js';
import { createOrganizationsRepository, type OrganizationRow } from '../organizations/organizations.repository.js';

export interface AdminUserChanges {
  tier?: Tier;
  /** Custom numbers for the user's personal organization; null returns it to its tier's defaults. */
  limits?: CustomLimits | null;
  disabled?: boolean;
}

export function createAdminService(deps: { db: Kysely<Database>; accounts: AccountCache; organizations: Pick<OrganizationCache, 'changed'>; sessions: SessionsService; clock: Clock }) {
  const { db, accounts, sessions, clock } = deps;
  const users = createUsersRepository(db);
  return {
    async list(filter: { email?: string }, limit: number, cursor?: string): Promise<{ rows: UserWithPlan[]; nextCursor: string | null }> {
      return toPage(await users.listWithPlan({ email: filter.email, beforeId: cursor, limit: limit + 1 }), limit);
    },

    /**
     * A user's disabled flag, and the tier and limits of their personal organization (what a user
     * buys for themself). Takes effect on the next request on every instance (the bus drops cached copies).
     */
    async update(userId: string, changes: AdminUserChanges): Promise<UserWithPlan> {
      const row = await users.findWithPlan(userId);
      if (!row) throw new AppError('not_found', 'No user with this id.');
      const now = isoTime(clock.now());
      const next: Partial<UserWithPlan> = { updated_at: now };
      if (changes.tier !== undefined || changes.limits !== undefined) {
        const plan = changeTier(row, changes);
        await db.updateTable('organizations').set({ ...plan, updated_at: now }).where('id', '=', row.personal_org_id).execute();
        await deps.organizations.changed(row.personal_org_id);
        Object.assign(next, plan);
      }
      if (changes.disabled !== undefined) {
        next.disabled = changes.disabled ? 1 : 0;
        await db.updateTable('users').set({ disabled: next.disabled, updated_at: now }).where('id', '=', userId).execute();
      }
      await accounts.changed(userId);
      // A disabled account is signed out everywhere; re-enabling does not bring sessions back.
      if (changes.disabled) await sessions.revokeAll(userId, 'account_disabled');
      return { ...row, ...next };
    },

    async getOrganization(orgId: string): Promise<OrganizationRow> {
      const row = await createOrganizationsRepository(db).findById(orgId);
      if (!row) throw new AppError('not_found', 'No organization with this id.');
      return row;
    },

    /** An organization's tier and custom limits: the budget all its members and keys spend from; at once on every instance. */
    async updateOrganization(orgId: string, changes: { tier?: Tier; limits?: CustomLimits | null }): Promise<OrganizationRow> {
      const row = await this.getOrganization(orgId);
      const next = { ...changeTier(row, changes), updated_at: isoTime(clock.now()) };
      await db.updateTable('organizations').set(next).where('id', '=', orgId).execute();
      await deps.organizations.changed(orgId);
      return { ...row, ...next };
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
