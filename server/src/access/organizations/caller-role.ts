import type { Kysely } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import { atLeast, insufficientRole, type OrgRole } from '../../kernel/access-terms/roles.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import { createOrganizationsRepository, type OrganizationRow } from './organizations.repository.js';

/** The same answer for a missing organization and one the caller is not in: ids reveal nothing. */
export const organizationNotFound = () => new AppError('not_found', 'No organization with this id.');

/** 403 insufficient_role, naming the least role that would do (`required_role`). */
export function assertRole(role: OrgRole, least: OrgRole, what: string): void {
  if (!atLeast(role, least)) {
    throw insufficientRole(least, role, what);
  }
}

/**
 * The organization and the caller's role, or 404. With `lock`, the organization row is locked
 * first (organizations.repository.ts lockById), and the role read after it: whatever the caller
 * decides from it holds until the commit.
 */
export async function membershipOf(
  db: Kysely<Database>,
  orgId: string,
  userId: string,
  lock?: DialectName,
): Promise<{ org: OrganizationRow; role: OrgRole }> {
  const repo = createOrganizationsRepository(db);
  const org = lock ? await repo.lockById(orgId, lock) : await repo.findById(orgId);
  const role = org && (await repo.roleOf(orgId, userId));
  if (!org || !role) throw organizationNotFound();
  return { org, role };
}
