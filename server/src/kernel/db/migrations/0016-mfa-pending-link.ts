import type { Kysely } from 'kysely';

/**
 * Issue 31: a provider sign-in that links by email to an account with a second factor links
 * only once the factor is proved. Until then the identity waits on the login's challenge row
 * (`pending_link`, the identity's row as JSON), in the database, so the instance that answers
 * POST /v1/auth/mfa/verify need not be the one that asked for the factor.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mfa_challenges').addColumn('pending_link', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mfa_challenges').dropColumn('pending_link').execute();
}
