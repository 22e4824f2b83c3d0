import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, OrganizationsTable, UsersTable } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';
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
export function newUserRow(input: { id: string; email: string; name: string; passwordHash: string; emailVerified: boolean; nowIso: string; anonymous?: boolean }): UserRow {
  return {
    id: input.id, email: input.email, email_normalized: normalizeEmail(input.email), name: input.name, password_hash: input.passwordHash,
    role: 'user', email_verified: input.emailVerified ? 1 : 0, disabled: 0, created_at: input.nowIso, updated_at: input.nowIso,
    personal_org_id: newId('organization'), organization_count: 1, deletion_due_at: null,
    is_anonymous: input.anonymous ? 1 : 0,
  };
}

/** A LIKE pattern for "contains `text`, any letter case": the input's own backslash, `%` and `_` are escaped, so they match literally. */
function containsPattern(text: string): string {
  return `%${text.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function createUsersRepository(db: Kysely<Database>) {
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
    /**
     * Guests unused since `cutoffIso`: made before it, and no session of theirs used since
     * (identity/guests; purged by flows/deletion-purge.ts).
     */
    idleGuests: (cutoffIso: string, limit: number, afterId?: string): Promise<string[]> => {
      let q = db.selectFrom('users').select('id').where('is_anonymous', '=', 1).where('created_at', '<', cutoffIso)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('sessions').select('sessions.id').whereRef('sessions.user_id', '=', 'users.id').where('sessions.last_used_at', '>=', cutoffIso))));
      if (afterId) q = q.where('id', '>', afterId);
      return q.orderBy('id').limit(limit).execute().then((r) => r.map((x) => x.id));
    },
    /** Cancels a scheduled deletion; false when none was scheduled (or the row is gone). */
    cancelDeletion: (id: string) =>
      db.updateTable('users').set({ deletion_due_at: null }).where('id', '=', id).where('deletion_due_at', 'is not', null).executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0),
    findWithPlan: (id: string): Promise<UserWithPlan | undefined> =>
      db.selectFrom('users').innerJoin('organizations', 'organizations.id', 'users.personal_org_id').selectAll('users').select(PLAN_COLUMNS).where('users.id', '=', id).executeTakeFirst(),
    /**
     * The user's row; sessions, refresh tokens, memberships and API keys go with it (ON DELETE
     * CASCADE). Call in the transaction that first left every organization
     * (access's `leaveAllOrganizations`).
     */
    async delete(id: string): Promise<void> {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
