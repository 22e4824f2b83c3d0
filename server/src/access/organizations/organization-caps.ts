import type { Kysely } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import { AppError } from '../../kernel/errors.js';
import type { Database } from '../../kernel/db/schema.js';
import { preparedQuery, type PreparedQuery } from '../../kernel/db/prepared-queries.js';

/** The counters beside each organization (migrations 0007, 0014): what it holds of each capped collection. */
export type OrganizationCounter = 'agent_count' | 'chat_count' | 'api_key_count' | 'webhook_count';

/** How many of each an organization may hold (config: AGENTS_PER_ORGANIZATION and the rest). */
export interface Caps {
  agentsPerOrganization: number;
  chatsPerOrganization: number;
  messagesPerChat: number;
  apiKeysPerOrganization: number;
  webhooksPerOrganization: number;
}

/**
 * The lock order of every transaction that changes an organization's capped collections: the
 * organization row first, then the rows it owns. `takeCapacity` takes it by its UPDATE; a delete
 * or revoke, which only knows afterwards how much to give back, takes it first with this. Without
 * one order, an agent deleted while a chat is created for it (the chat's foreign key waits on the
 * agent row, the delete on the organization row) deadlocks on PostgreSQL. SQLite runs one writer
 * at a time: no-op. FOR NO KEY UPDATE does not block the foreign-key checks of inserts that
 * reference the organization.
 */
export async function lockOrganization(trx: Kysely<Database>, dialect: DialectName, orgId: string): Promise<void> {
  if (dialect === 'postgres') await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forNoKeyUpdate().execute();
}

/**
 * Takes one of the organization's `cap` in the caller's transaction, or throws 422 limit_reached.
 * One conditional UPDATE, no COUNT(*): it holds the organization row's lock (PostgreSQL) or the
 * write lock (SQLite) until the transaction ends, so concurrent creates on any number of instances
 * can never together pass the cap. Give the unit back with `releaseCapacity` when the thing is
 * deleted.
 */
export async function takeCapacity(trx: Kysely<Database>, orgId: string, counter: OrganizationCounter, cap: number, what: string): Promise<void> {
  if ((await TAKE[counter].run({ orgId, cap }, trx)) === 0) throw new AppError('limit_reached', `An organization can hold at most ${cap} ${what}.`, { limit: cap });
}

const takeOne = (counter: OrganizationCounter) => preparedQuery((q, $: { orgId: string; cap: number }) =>
  q.updateTable('organizations').set((eb) => ({ [counter]: eb(counter, '+', 1) })).where('id', '=', $.orgId).where(counter, '<', $.cap));
const TAKE: Record<OrganizationCounter, PreparedQuery<{ orgId: string; cap: number }, unknown>> = {
  agent_count: takeOne('agent_count'), chat_count: takeOne('chat_count'), api_key_count: takeOne('api_key_count'), webhook_count: takeOne('webhook_count'),
};

/** Gives back `count` units (a delete, a revoke) in the transaction that removed them. */
export async function releaseCapacity(trx: Kysely<Database>, orgId: string, counter: OrganizationCounter, count = 1): Promise<void> {
  if (count > 0) await trx.updateTable('organizations').set((eb) => ({ [counter]: eb(counter, '-', count) })).where('id', '=', orgId).execute();
}
