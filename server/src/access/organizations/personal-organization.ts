import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/db/schema.js';
import { newOrganizationRow } from './organizations.repository.js';

/**
 * A new account's personal organization, free tier, the user its owner: written in the account's
 * own transaction by identity's registration and provider sign-up, which know it by its shape
 * (CreatePersonalOrganization) and get it from the wiring (dependencies.ts).
 */
export async function createPersonalOrganization(trx: Kysely<Database>, user: { id: string; name: string; personal_org_id: string; created_at: string }): Promise<void> {
  const org = newOrganizationRow({ id: user.personal_org_id, name: user.name, personal: true, nowIso: user.created_at });
  await trx.insertInto('organizations').values(org).execute();
  await trx.insertInto('memberships').values({ org_id: org.id, user_id: user.id, role: 'owner', created_at: user.created_at }).execute();
}
