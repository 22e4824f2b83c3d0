import type { Kysely, Selectable } from 'kysely';
import type { Database, UsersTable } from '../../infra/db/schema.js';

export type UserRow = Selectable<UsersTable>;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
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
    /** Sessions and refresh tokens go with the user through ON DELETE CASCADE. */
    delete: (id: string) => db.deleteFrom('users').where('id', '=', id).executeTakeFirst().then((r) => Number(r.numDeletedRows) > 0),
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
