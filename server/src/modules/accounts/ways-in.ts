import type { Kysely } from 'kysely';
import { AppError } from '../../core/errors.js';
import type { DialectName } from '../../infra/db/database.js';
import type { Database } from '../../infra/db/schema.js';
import { hasPassword } from '../users/users.repository.js';
import { lockAccount } from './account-caps.js';

const count = async (trx: Kysely<Database>, table: 'passkeys' | 'identities', userId: string) =>
  Number((await trx.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);

/**
 * Before a passkey or a linked provider is removed, in the removing transaction: an account
 * without a password keeps at least one of them, so its owner is never locked out (email
 * recovery aside). The account row is locked first (PostgreSQL; SQLite has one writer), so two
 * removals at once cannot both see "one other left".
 */
export async function keepAnotherWayIn(trx: Kysely<Database>, dialect: DialectName, userId: string): Promise<void> {
  await lockAccount(trx, dialect, userId);
  const user = await trx.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  if (!user || hasPassword(user)) return;
  if ((await count(trx, 'passkeys', userId)) + (await count(trx, 'identities', userId)) <= 1) {
    throw new AppError('conflict', 'This is the only way into the account: set a password ("Forgot password") or add a passkey first.');
  }
}
