import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';

/** What became of a departing member's keys: their ids, and the hashes every instance must drop. */
export interface KeysOutcome {
  ids: string[];
  hashes: string[];
}

const hashesOf = (rows: { secret_hash: string; previous_secret_hash: string | null }[]) =>
  rows.flatMap((r) => (r.previous_secret_hash === null ? [r.secret_hash] : [r.secret_hash, r.previous_secret_hash]));

/**
 * Revokes the live API keys `userId` created in the organization, in the caller's transaction,
 * and gives their units back to the organization's key cap. A removed member must not keep
 * acting for the organization through a key made while they belonged to it.
 */
export async function revokeMemberKeys(trx: Kysely<Database>, clock: Clock, orgId: string, userId: string): Promise<KeysOutcome> {
  const rows = await trx.updateTable('api_keys').set({ revoked_at: isoTime(clock.now()) })
    .where('org_id', '=', orgId).where('user_id', '=', userId).where('revoked_at', 'is', null)
    .returning(['id', 'secret_hash', 'previous_secret_hash']).execute();
  if (rows.length > 0) {
    await trx.updateTable('organizations').set((eb) => ({ api_key_count: eb('api_key_count', '-', rows.length) })).where('id', '=', orgId).execute();
  }
  return { ids: rows.map((r) => r.id), hashes: hashesOf(rows) };
}

/**
 * Hands the departing member's live keys in the organization to `toUserId` (the remover), who
 * from now on is their creator: a key's scopes are capped by its creator's role, and a creator
 * must be a member. The keys keep their secrets; instances re-read them (api-keys-changed).
 */
export async function handOverMemberKeys(trx: Kysely<Database>, orgId: string, userId: string, toUserId: string): Promise<KeysOutcome> {
  const rows = await trx.updateTable('api_keys').set({ user_id: toUserId })
    .where('org_id', '=', orgId).where('user_id', '=', userId).where('revoked_at', 'is', null)
    .returning(['id', 'secret_hash', 'previous_secret_hash']).execute();
  return { ids: rows.map((r) => r.id), hashes: hashesOf(rows) };
}
