import { AppError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import type { ClientInfo } from '../../kernel/client-info.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/db/schema.js';
import { createUsersRepository, type AccountCache, type SecurityLog, type SessionsService, type UserWithPlan } from '../../identity/index.js';
import { changeTier, type CustomLimits, type Tier } from '../../kernel/access-terms/tiers.js';
import type { OrgRole } from '../../kernel/access-terms/roles.js';
import type { OrganizationCache } from '../organizations/organization-cache.js';
import { createOrganizationsRepository, type OrganizationRow } from '../organizations/organizations.repository.js';
import { ORGANIZATIONS_PER_USER } from '../organizations/membership-caps.js';

export interface AdminUserChanges {
  tier?: Tier;
  /** Custom numbers for the user's personal organization; null returns it to its tier's defaults. */
  limits?: CustomLimits | null;
  disabled?: boolean;
}

/** Which users a list keeps: `email` exactly, `q` any part of the address or the name, any letter case. */
export interface AdminUserFilter {
  email?: string;
  q?: string;
  tier?: Tier;
  disabled?: boolean;
}

/** Who made a change, for the user's security log: an admin through the API, or the operator's CLI. */
export type AdminActor = { adminId: string; client: ClientInfo } | { operator: true };

/** An organization the user belongs to, with their role there. */
export interface UserMembership {
  id: string;
  name: string;
  role: OrgRole;
  personal: boolean;
}

export function createAdminService(deps: {
  db: Kysely<Database>;
  accounts: Pick<AccountCache, 'changed'>;
  organizations: Pick<OrganizationCache, 'changed'>;
  sessions: Pick<SessionsService, 'revokeAll'>;
  securityLog: Pick<SecurityLog, 'record'>;
  clock: Clock;
}) {
  const { db, accounts, sessions, clock } = deps;
  const users = createUsersRepository(db);

  async function findUser(userId: string): Promise<UserWithPlan> {
    const row = await users.findWithPlan(userId);
    if (!row) throw new AppError('not_found', 'No user with this id.');
    return row;
  }

  return {
    /** Newest first. A `q` match reads users newest first until the page is full (see listWithPlan). */
    async list(filter: AdminUserFilter, limit: number, cursor?: string): Promise<{ rows: UserWithPlan[]; nextCursor: string | null }> {
      const rows = await users.listWithPlan({ email: filter.email, search: filter.q, tier: filter.tier, disabled: filter.disabled, beforeId: cursor, limit: limit + 1 });
      return toPage(rows, limit);
    },

    /** The user with their personal organization's plan; 404 when there is none. */
    user: findUser,

    /** The user and every organization they belong to: one indexed read, at most ORGANIZATIONS_PER_USER rows. */
    async detail(userId: string): Promise<{ user: UserWithPlan; organizations: UserMembership[] }> {
      const user = await findUser(userId);
      const orgs = await createOrganizationsRepository(db).listForUser(userId, ORGANIZATIONS_PER_USER);
      return { user, organizations: orgs.map((o) => ({ id: o.id, name: o.name, role: o.role, personal: o.personal === 1 })) };
    },

    /**
     * A user's disabled flag, and the tier and limits of their personal organization (what a user
     * buys for themself). Takes effect on the next request on every instance (the bus drops cached
     * copies); disabling also revokes every session, which closes the streams they hold open.
     * The user's security log records who did it.
     */
    async update(userId: string, changes: AdminUserChanges, actor: AdminActor): Promise<UserWithPlan> {
      // Disabling oneself would end the session doing it and every way back in: another
      // administrator, or the operator's CLI, can do it.
      if (changes.disabled === true && 'adminId' in actor && actor.adminId === userId) {
        throw new AppError('conflict', 'An administrator cannot disable their own account; another administrator or the operator (gatehouse users disable) can.');
      }
      const row = await findUser(userId);
      const now = isoTime(clock.now());
      const next: Partial<UserWithPlan> = { updated_at: now };
      if (changes.tier !== undefined || changes.limits !== undefined) {
        const plan = changeTier(row, changes);
        await createOrganizationsRepository(db).setPlan(row.personal_org_id, plan, now);
        await deps.organizations.changed(row.personal_org_id);
        Object.assign(next, plan);
      }
      if (changes.disabled !== undefined) {
        next.disabled = changes.disabled ? 1 : 0;
        await createUsersRepository(db).update(userId, { disabled: next.disabled, updated_at: now });
      }
      await accounts.changed(userId);
      // A disabled account is signed out everywhere; re-enabling does not bring sessions back.
      if (changes.disabled) await sessions.revokeAll(userId, 'account_disabled');
      const by = 'operator' in actor ? { by: 'operator' } : { admin_id: actor.adminId };
      await deps.securityLog.record(userId, 'account_updated_by_admin', 'operator' in actor ? undefined : actor.client, { ...by, changes });
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
