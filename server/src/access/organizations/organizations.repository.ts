import type { Kysely, Selectable } from 'kysely';
import type { Database, MembershipsTable, OrganizationsTable } from '../../kernel/db/schema.js';
import type { DialectName } from '../../kernel/db/database.js';
import { preparedQuery } from '../../kernel/db/prepared-queries.js';
import type { OrgRole } from '../../kernel/access-terms/roles.js';

export type OrganizationRow = Selectable<OrganizationsTable>;
export type MembershipRow = Selectable<MembershipsTable>;

/** A member as the members list shows them: the membership with the account's email and name. */
export interface MemberView {
  user_id: string;
  email: string;
  name: string;
  role: OrgRole;
  joined_at: string;
}

/** A new organization's row: the free tier, nothing held yet. */
export function newOrganizationRow(input: { id: string; name: string; personal: boolean; nowIso: string }): OrganizationRow {
  return {
    id: input.id, name: input.name, personal: input.personal ? 1 : 0, tier: 'free', limit_per_minute: null, limit_per_day: null, limit_streams: null,
    agent_count: 0, chat_count: 0, api_key_count: 0, webhook_count: 0, created_at: input.nowIso, updated_at: input.nowIso,
  };
}

const findOrganization = preparedQuery((q, $: { id: string }) => q.selectFrom('organizations').selectAll().where('id', '=', $.id));
const findRole = preparedQuery((q, $: { orgId: string; userId: string }) =>
  q.selectFrom('memberships').select('role').where('org_id', '=', $.orgId).where('user_id', '=', $.userId));

// The earliest owner first (then by id, so every instance picks the same one).
const teamOwner = preparedQuery((q, $: { orgId: string }) =>
  q.selectFrom('memberships').innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select('memberships.user_id').where('memberships.org_id', '=', $.orgId).where('memberships.role', '=', 'owner').where('organizations.personal', '=', 0)
    .orderBy('memberships.created_at').orderBy('memberships.user_id').limit(1));

/** Created over the database or over a transaction (`createOrganizationsRepository(trx)`), like the other repositories. */
export function createOrganizationsRepository(db: Kysely<Database>) {
  return {
    db,
    findById: (id: string): Promise<OrganizationRow | undefined> => findOrganization.first({ id }, db),
    /** The user's role in the organization; undefined: not a member. */
    roleOf: async (orgId: string, userId: string): Promise<OrgRole | undefined> => (await findRole.first({ orgId, userId }, db))?.role,
    /** The user id of a team's earliest owner (whose free-teams budget it spends when free: access/usage/budget-key.ts); null for a personal one. */
    teamOwnerOf: async (orgId: string): Promise<string | null> => (await teamOwner.first({ orgId }, db))?.user_id ?? null,
    /** An organization with its first member (call in a transaction). */
    async insertWithOwner(org: OrganizationRow, ownerId: string): Promise<void> {
      await db.insertInto('organizations').values(org).execute();
      await db.insertInto('memberships').values({ org_id: org.id, user_id: ownerId, role: 'owner', created_at: org.created_at }).execute();
    },

    /**
     * The organization's row, locked until the transaction ends on PostgreSQL (SQLite runs one
     * writer at a time). Every change to memberships takes it first: two demotions of the last
     * two owners then take turns, and the second sees the first's result in its owner count.
     * FOR NO KEY UPDATE leaves the foreign-key checks of inserts that reference it unblocked.
     */
    lockById: (id: string, dialect: DialectName): Promise<OrganizationRow | undefined> => {
      const q = db.selectFrom('organizations').selectAll().where('id', '=', id);
      return (dialect === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
    },

    /** The user's organizations with their role in each, newest first, ids below `beforeId`. */
    listForUser: (userId: string, limit: number, beforeId?: string) => {
      let q = db.selectFrom('memberships').innerJoin('organizations', 'organizations.id', 'memberships.org_id')
        .selectAll('organizations').select('memberships.role').where('memberships.user_id', '=', userId);
      if (beforeId) q = q.where('organizations.id', '<', beforeId);
      return q.orderBy('organizations.id', 'desc').limit(limit).execute();
    },

    rename: (id: string, name: string, nowIso: string) =>
      db.updateTable('organizations').set({ name, updated_at: nowIso }).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),

    /** Deletes the organization; everything it owns goes with it by ON DELETE CASCADE. */
    /** A new tier and custom limits (the admin API's and `gatehouse users set-tier`'s one write of them). */
    setPlan: (id: string, plan: Pick<OrganizationRow, 'tier' | 'limit_per_minute' | 'limit_per_day' | 'limit_streams'>, nowIso: string) =>
      db.updateTable('organizations').set({ tier: plan.tier, limit_per_minute: plan.limit_per_minute, limit_per_day: plan.limit_per_day, limit_streams: plan.limit_streams, updated_at: nowIso }).where('id', '=', id).execute(),
    delete: (id: string) => db.deleteFrom('organizations').where('id', '=', id).execute(),

    member: (orgId: string, userId: string): Promise<MemberView | undefined> =>
      membersQuery(db, orgId).where('memberships.user_id', '=', userId).executeTakeFirst(),

    /** Members by account id, newest account first (ids sort by creation), ids below `beforeUserId`. */
    listMembers: (orgId: string, limit: number, beforeUserId?: string): Promise<MemberView[]> => {
      let q = membersQuery(db, orgId);
      if (beforeUserId) q = q.where('memberships.user_id', '<', beforeUserId);
      return q.orderBy('memberships.user_id', 'desc').limit(limit).execute();
    },

    memberIds: async (orgId: string): Promise<string[]> =>
      (await db.selectFrom('memberships').select('user_id').where('org_id', '=', orgId).execute()).map((r) => r.user_id),

    countOwners: async (orgId: string): Promise<number> => {
      const row = await db.selectFrom('memberships').select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('org_id', '=', orgId).where('role', '=', 'owner').executeTakeFirstOrThrow();
      return Number(row.n); // pg returns a count as text
    },

    addMember: (orgId: string, userId: string, role: OrgRole, nowIso: string) =>
      db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role, created_at: nowIso }).execute(),

    setRole: (orgId: string, userId: string, role: OrgRole) =>
      db.updateTable('memberships').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).execute(),

    removeMember: (orgId: string, userId: string) =>
      db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute(),

    /** Whether this organization is the user's personal one (which keeps its user as owner for good). */
    isPersonalOrgOf: async (orgId: string, userId: string): Promise<boolean> =>
      (await db.selectFrom('users').select('id').where('id', '=', userId).where('personal_org_id', '=', orgId).executeTakeFirst()) !== undefined,
  };
}
export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;

function membersQuery(db: Kysely<Database>, orgId: string) {
  return db.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.user_id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at as joined_at'])
    .where('memberships.org_id', '=', orgId);
}
