import type { Kysely } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import type { Database } from '../../kernel/db/schema.js';
import { preparedQuery } from '../../kernel/db/prepared-queries.js';

/** How many organizations one user may belong to (their personal one included). */
export const ORGANIZATIONS_PER_USER = 100;

const takeOne = preparedQuery((q, $: { userId: string; cap: number }) =>
  q.updateTable('users').set((eb) => ({ organization_count: eb('organization_count', '+', 1) })).where('id', '=', $.userId).where('organization_count', '<', $.cap));

/**
 * Takes one of the user's memberships in the caller's transaction, or throws 422 limit_reached:
 * one conditional UPDATE, like every other cap (organization-caps.ts). It holds the user
 * row's lock (PostgreSQL) or the write lock (SQLite) until the commit, so concurrent creates and
 * accepts can never together pass the cap, on any number of instances.
 */
export async function takeMembership(trx: Kysely<Database>, userId: string, cap: number): Promise<void> {
  if ((await takeOne.run({ userId, cap }, trx)) === 0) {
    throw new AppError('limit_reached', `An account can belong to at most ${cap} organizations; leave one first.`, { limit: cap });
  }
}

/** Gives back the user's membership (they left or were removed), in the transaction that ended it. */
export async function releaseMembership(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.updateTable('users').set((eb) => ({ organization_count: eb('organization_count', '-', 1) })).where('id', '=', userId).execute();
}

/** Gives back every member's membership of an organization about to be deleted (before its memberships go). */
export async function releaseMembershipsOf(trx: Kysely<Database>, orgId: string): Promise<void> {
  await trx.updateTable('users').set((eb) => ({ organization_count: eb('organization_count', '-', 1) }))
    .where('id', 'in', (eb) => eb.selectFrom('memberships').select('user_id').where('org_id', '=', orgId)).execute();
}
