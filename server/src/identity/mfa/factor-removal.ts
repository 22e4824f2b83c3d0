import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import type { Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { SecurityLog } from '../security-log/security-log.js';
import { createMfaRepository } from './mfa.repository.js';

/**
 * Turns an account's second factor off: the factor (on or still pending), its recovery codes and
 * open login challenges go, with the `user.mfa.disabled` event in the same transaction when a
 * factor was on; then the security log. The one way to do it, for the owner (settings) and for an
 * operator (`gatehouse users reset-mfa`, `by: 'operator'`). Returns what was removed and how many
 * the event it recorded (hand it to the event signal after the commit).
 */
export async function removeSecondFactor(
  deps: { db: Kysely<Database>; clock: Clock; securityLog: SecurityLog },
  userId: string,
  how: { client?: ClientInfo; by?: 'operator' } = {},
): Promise<{ removed: 'enabled' | 'pending' | null; recorded: RecordedEvent | undefined }> {
  const repo = createMfaRepository(deps.db);
  const detail = { method: 'totp', ...(how.by ? { by: how.by } : {}) };
  const result = await deps.db.transaction().execute(async (trx) => {
    const removed = await repo.removeFactor(trx, userId);
    const recorded = removed === 'enabled' ? await recordEvent(trx, deps.clock, { userId, type: 'user.mfa.disabled', data: { user_id: userId, ...detail } }) : undefined;
    return { removed, recorded };
  });
  if (result.removed === 'enabled') await deps.securityLog.record(userId, 'mfa_disabled', how.client, detail);
  return result;
}
