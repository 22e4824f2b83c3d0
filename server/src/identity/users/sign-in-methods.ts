import type { Kysely } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { hasPassword } from './users.repository.js';

const count = async (trx: Kysely<Database>, table: 'passkeys' | 'identities', userId: string) =>
  Number((await trx.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);

/**
 * Before a passkey or a linked provider is removed, in the removing transaction: an account
 * without a password keeps at least one of them, so its owner is never locked out (email
 * recovery aside). The user's row is read FOR NO KEY UPDATE (PostgreSQL; SQLite has one writer), so two
 * removals at once queue on it and the second counts after the first committed: they cannot both
 * see "one other left" (and a link inserting its identity, which only key-shares the row, is not
 * blocked). The user's row, not the organization's: sign-in methods belong to the person.
 */
export async function assertKeepsASignInMethod(trx: Kysely<Database>, dialect: DialectName, userId: string): Promise<void> {
  const read = trx.selectFrom('users').select('password_hash').where('id', '=', userId);
  const user = await (dialect === 'postgres' ? read.forNoKeyUpdate() : read).executeTakeFirst();
  if (!user || hasPassword(user)) return;
  if ((await count(trx, 'passkeys', userId)) + (await count(trx, 'identities', userId)) <= 1) {
    throw new AppError('conflict', 'This is the only way into the account: set a password ("Forgot password") or add a passkey first.');
  }
}
