import type { Kysely } from 'kysely';
import type { Clock } from '../../infra/clock.js';
import type { Database } from '../../infra/db/schema.js';
import { recordEvent } from '../events/event-outbox.js';
import { createSecurityLog } from '../security-log/security-log.js';
import { createMfaRepository } from './mfa.repository.js';

/**
 * An operator turns an account's second factor off (`gatehouse users reset-mfa`): the owner lost
 * the phone and the recovery codes, and must not be locked out for good. Removes the factor, its
 * recovery codes and open login challenges with the `user.mfa.disabled` event in one transaction,
 * and writes the security log. False when the account had no factor on.
 */
export async function turnOffByOperator(db: Kysely<Database>, clock: Clock, userId: string): Promise<boolean> {
  const repo = createMfaRepository(db);
  const removed = await db.transaction().execute(async (trx) => {
    const gone = await repo.removeAll(trx, userId);
    if (gone) await recordEvent(trx, clock, { userId, type: 'user.mfa.disabled', data: { user_id: userId, method: 'totp', by: 'operator' } });
    return gone;
  });
  // A running instance's delivery worker finds the event on its next poll (the CLI cannot wake it).
  if (removed) await createSecurityLog({ db, clock, onError: (e) => { throw e; } }).record(userId, 'mfa_disabled', undefined, { method: 'totp', by: 'operator' });
  return removed;
}
