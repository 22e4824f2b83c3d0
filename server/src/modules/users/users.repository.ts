import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, UsersTable } from '../../infra/db/schema.js';

export type UserRow = Selectable<UsersTable>;

/** The stored hash of an account that has no password (created through a provider): no password matches it. */
export const NO_PASSWORD = '';
export const hasPassword = (user: Pick<UserRow, 'password_hash'>): boolean => user.password_hash !== NO_PASSWORD;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A new account's row: the free tier, the user role, nothing held yet. */
export function newUserRow(input: { id: string; email: string; name: string; passwordHash: string; emailVerified: boolean; nowIso: string }): UserRow {
  return {
    id: input.id, email: input.email, email_normalized: normalizeEmail(input.email), name: input.name, password_hash: input.passwordHash,
    tier: 'free', role: 'user', email_verified: input.emailVerified ? 1 : 0, disabled: 0, limit_per_minute: null, limit_per_day: null, limit_streams: null,
    created_at: input.nowIso, updated_at: input.nowIso, agent_count: 0, chat_count: 0, api_key_count: 0, webhook_count: 0,
  };
}

export function createUsersRepository(db: Kysely<Database>) {
  return {
    db,
    insert: (row: UserRow) => db.insertInto('users').values(row).execute(),
    findById: (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    findByEmail: (email: string) =>
      db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst(),
    update: (id: string, changes: Partial<UserRow>) =>
      db.updateTable('users').set(changes).where('id', '=', id).executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0),
    /** Newest first; `emailContains` matches any part of the address, in any letter case. */
    list: (filter: { tier?: string; emailContains?: string; limit: number }) => {
      let q = db.selectFrom('users').selectAll();
      if (filter.tier) q = q.where('tier', '=', filter.tier);
      if (filter.emailContains) {
        const pattern = `%${normalizeEmail(filter.emailContains).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        q = q.where(sql<boolean>`email_normalized like ${pattern} escape '\\'`);
      }
      return q.orderBy('id', 'desc').limit(filter.limit).execute();
    },
    /** Sessions and refresh tokens go with the user through ON DELETE CASCADE. */
    delete: (id: string) => db.deleteFrom('users').where('id', '=', id).executeTakeFirst().then((r) => Number(r.numDeletedRows) > 0),
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
