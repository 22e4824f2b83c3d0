import { sql, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database, OrganizationsTable, UsersTable } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';
import { AppError } from '../../kernel/errors.js';
import { normalizeEmail } from '../../kernel/email-address.js';

export type UserRow = Selectable<UsersTable>;

/** A user with the tier and custom limits of their personal organization, for the admin API and CLI. */
export type UserWithPlan = UserRow & Pick<Selectable<OrganizationsTable>, 'tier' | 'limit_per_minute' | 'limit_per_day' | 'limit_streams'>;

/**
 * Makes a new account's personal organization (free tier, the user its owner) in the account's
 * transaction. Organizations are access's: it implements this (access/organizations/personal-organization.ts).
 */
export type CreatePersonalOrganization = (trx: Kysely<Database>, user: Pick<UserRow, 'id' | 'name' | 'personal_org_id' | 'created_at'>) => Promise<void>;
const PLAN_COLUMNS = ['organizations.tier', 'organizations.limit_per_minute', 'organizations.limit_per_day', 'organizations.limit_streams'] as const;

/** The stored hash of an account that has no password (created through a provider): no password matches it. */
export const NO_PASSWORD = '';
export const hasPassword = (user: Pick<UserRow, 'password_hash'>): boolean => user.password_hash !== NO_PASSWORD;

export { normalizeEmail } from '../../kernel/email-address.js';

/** A new account's row: the user role, a personal organization to be inserted with it (`insert`). */
export function newUserRow(input: { id: string; email: string; name: string; passwordHash: string; emailVerified: boolean; nowIso: string }): UserRow {
  return {
    id: input.id, email: input.email, email_normalized: normalizeEmail(input.email), name: input.name, password_hash: input.passwordHash,
    role: 'user', email_verified: input.emailVerified ? 1 : 0, disabled: 0, created_at: input.nowIso, updated_at: input.nowIso,
    personal_org_id: newId('organization'), organization_count: 1, deletion_due_at: null,
  };
}

/** A LIKE pattern for "contains `text`, any letter case": the input's own backslash, `%` and `_` are escaped, so they match literally. */
function containsPattern(text: string): string {
  return `%${text.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function createUsersRepository(db: Kysely<Database>) {
  /**
   * The organizations the user is a member of, and those they are the only member of. Throws
   * 409 last_owner while the user is the last owner of an organization that has other members.
   */
  async function assertMayLeaveAll(id: string): Promise<{ orgIds: string[]; alone: string[] }> {
    const memberships = await db.selectFrom('memberships').select(['org_id', 'role']).where('user_id', '=', id).execute();
    const orgIds = memberships.map((m) => m.org_id);
    if (orgIds.length === 0) return { orgIds, alone: [] };
    const members = await db.selectFrom('memberships').select(['org_id', 'user_id', 'role']).where('org_id', 'in', orgIds).execute();
    const alone: string[] = [];
    for (const orgId of orgIds) {
      const others = members.filter((m) => m.org_id === orgId && m.user_id !== id);
      if (others.length === 0) alone.push(orgId);
      else if (memberships.some((m) => m.org_id === orgId && m.role === 'owner') && !others.some((m) => m.role === 'owner')) {
        throw new AppError('last_owner', `The account is the last owner of organization ${orgId}, which has other members: make one of them an owner first.`, { organization_id: orgId });
      }
    }
    return { orgIds, alone };
  }

  return {
    db,
    /** The user with their personal organization (free tier, the user its owner); call in a transaction. */
    async insert(row: UserRow, createPersonalOrganization: CreatePersonalOrganization): Promise<void> {
      await db.insertInto('users').values(row).execute();
      await createPersonalOrganization(db, row);
    },
    findById: (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    findByEmail: (email: string) =>
      db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst(),
    update: (id: string, changes: Partial<UserRow>) =>
      db.updateTable('users').set(changes).where('id', '=', id).executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0),
    /**
     * Newest first, with their personal organization's plan. `email` matches exactly, `emailContains`
     * any part of the address, `search` any part of the address or the name, in any letter case
     * (non-ASCII names: on PostgreSQL only; SQLite's lower() knows ASCII). A part-of match cannot
     * use an index: the walk goes through users newest first until the page is full, so a rare
     * match on a large table reads all of it (admin and operator only, one bounded page at a time).
     */
    listWithPlan: (filter: { tier?: string; email?: string; emailContains?: string; search?: string; disabled?: boolean; beforeId?: string; limit: number }): Promise<UserWithPlan[]> => {
      let q = db.selectFrom('users').innerJoin('organizations', 'organizations.id', 'users.personal_org_id').selectAll('users').select(PLAN_COLUMNS);
      if (filter.tier) q = q.where('organizations.tier', '=', filter.tier);
      if (filter.email) q = q.where('users.email_normalized', '=', normalizeEmail(filter.email));
      if (filter.emailContains) q = q.where(sql<boolean>`users.email_normalized like ${containsPattern(filter.emailContains)} escape '\\'`);
      if (filter.search) {
        const pattern = containsPattern(filter.search);
        q = q.where(sql<boolean>`(users.email_normalized like ${pattern} escape '\\' or lower(users.name) like ${pattern} escape '\\')`);
      }
      if (filter.disabled !== undefined) q = q.where('users.disabled', '=', filter.disabled ? 1 : 0);
      if (filter.beforeId) q = q.where('users.id', '<', filter.beforeId);
      return q.orderBy('users.id', 'desc').limit(filter.limit).execute();
    },
    /** Ids of accounts whose deletion is due at `nowIso`, in id order after `afterId` (the purge sweep, accounts/deletion-purge.ts). */
    dueForDeletion: (nowIso: string, limit: number, afterId?: string): Promise<string[]> => {
      let q = db.selectFrom('users').select('id').where('deletion_due_at', 'is not', null).where('deletion_due_at', '<=', nowIso);
      if (afterId) q = q.where('id', '>', afterId);
      return q.orderBy('id').limit(limit).execute().then((r) => r.map((x) => x.id));
    },
    /** Cancels a scheduled deletion; false when none was scheduled (or the row is gone). */
    cancelDeletion: (id: string) =>
      db.updateTable('users').set({ deletion_due_at: null }).where('id', '=', id).where('deletion_due_at', 'is not', null).executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0),
    findWithPlan: (id: string): Promise<UserWithPlan | undefined> =>
      db.selectFrom('users').innerJoin('organizations', 'organizations.id', 'users.personal_org_id').selectAll('users').select(PLAN_COLUMNS).where('users.id', '=', id).executeTakeFirst(),
    assertMayLeaveAll,
    /**
     * Locks the organizations the user belongs to (PostgreSQL; in id order), as every membership
     * change locks its organization before the rows it changes: a leave, a role change or an
     * organization's deletion meanwhile then waits, and a last-owner check after this reads the
     * members as they will be at commit. Call first in the transaction, before locking the
     * user's own row (removing a member and deleting an organization take the organization, then
     * the members' rows: the other order deadlocks).
     */
    async lockOrganizationsOf(id: string, dialect: DialectName): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.selectFrom('organizations').select('id').where('id', 'in', db.selectFrom('memberships').select('org_id').where('user_id', '=', id))
        .orderBy('id').forNoKeyUpdate().execute();
    },
    /**
     * The user, their personal organization and every organization they are the only member of
     * (with all they own, by ON DELETE CASCADE), and their memberships and API keys elsewhere (the
     * organizations' key counters given back). Sessions and refresh tokens go with the user.
     * Refused while the user is the last owner of an organization that has other members.
     * Returns the organizations the user was a member of. Call in a transaction.
     * Lock the organizations first (`lockOrganizationsOf`), before the user's row.
     */
    async delete(id: string): Promise<string[]> {
      const { orgIds, alone } = await assertMayLeaveAll(id);
      if (orgIds.length === 0) return [];
      const personal = (await db.selectFrom('users').select('personal_org_id').where('id', '=', id).executeTakeFirst())?.personal_org_id;
      const gone = [...new Set([...alone, ...(personal ? [personal] : [])])];
      const kept = await db.selectFrom('api_keys').select(['org_id', (eb) => eb.fn.countAll<number>().as('n')]).where('user_id', '=', id).where('revoked_at', 'is', null)
        .where('org_id', 'not in', gone).groupBy('org_id').execute();
      for (const { org_id, n } of kept) await db.updateTable('organizations').set((eb) => ({ api_key_count: eb('api_key_count', '-', Number(n)) })).where('id', '=', org_id).execute();
      await db.deleteFrom('organizations').where('id', 'in', gone).execute();
      await db.deleteFrom('users').where('id', '=', id).execute();
      return orgIds;
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
