import type { Kysely } from 'kysely';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { AppError } from '../../kernel/errors.js';

/**
 * The organizations the user is a member of, and those they are the only member of. Throws
 * 409 last_owner while the user is the last owner of an organization that has other members.
 */
export async function assertMayLeaveAll(db: Kysely<Database>, id: string): Promise<{ orgIds: string[]; alone: string[] }> {
  const memberships = await db.selectFrom('memberships').select(['org_id', 'role']).where('user_id', '=', id).execute();
  const orgIds = memberships.map((m) => m.org_id);
  if (orgIds.length === 0) return { orgIds, alone: [] };
  const members = await db.selectFrom('memberships').select(['org_id', 'user_id', 'role']).where('org_id', 'in', orgIds).execute();
  const alone: string[] = [];
  for (const orgId of orgIds) {
    const others = members.filter((m) => m.org_id === orgId && m.user_id !== id);
    if (others.length === 0) alone.push(orgId);
    else if (memberships.some((m) => m.org_id === orgId && m.role === 'owner') && !others.some((m) => m.role === 'owner')) {
      throw new AppError('last_owner', `The account is the last owner of organization ${orgId}, which has other members: make one of them an owner first.`, { organization_id: orgId });
    }
  }
  return { orgIds, alone };
}

/**
 * Locks the organizations the user belongs to (PostgreSQL; in id order), as every membership
 * change locks its organization before the rows it changes: a leave, a role change or an
 * organization's deletion meanwhile then waits, and a last-owner check after this reads the
 * members as they will be at commit. Call first in the transaction, before locking the
 * user's own row (removing a member and deleting an organization take the organization, then
 * the members' rows: the other order deadlocks).
 */
export async function lockOrganizationsOf(db: Kysely<Database>, id: string, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('organizations').select('id').where('id', 'in', db.selectFrom('memberships').select('org_id').where('user_id', '=', id))
    .orderBy('id').forNoKeyUpdate().execute();
}

/**
 * Before a user's row is deleted (in its transaction, after `lockOrganizationsOf`): their
 * personal organization and every organization they are the only member of go (with all they
 * own, by ON DELETE CASCADE); the organizations they stay out of get back the count of the API
 * keys of theirs that go with the user. Refused (409 last_owner, nothing changed) while the user
 * is the last owner of an organization that has other members. Returns the organizations the
 * user was a member of; none: the user is not to be deleted (they are in no organization).
 */
export async function leaveAllOrganizations(db: Kysely<Database>, id: string): Promise<string[]> {
  const { orgIds, alone } = await assertMayLeaveAll(db, id);
  if (orgIds.length === 0) return [];
  const personal = (await db.selectFrom('users').select('personal_org_id').where('id', '=', id).executeTakeFirst())?.personal_org_id;
  const gone = [...new Set([...alone, ...(personal ? [personal] : [])])];
  const kept = await db.selectFrom('api_keys').select(['org_id', (eb) => eb.fn.countAll<number>().as('n')]).where('user_id', '=', id).where('revoked_at', 'is', null)
    .where('org_id', 'not in', gone).groupBy('org_id').execute();
  for (const { org_id, n } of kept) await db.updateTable('organizations').set((eb) => ({ api_key_count: eb('api_key_count', '-', Number(n)) })).where('id', '=', org_id).execute();
  await db.deleteFrom('organizations').where('id', 'in', gone).execute();
  return orgIds;
}
