import { AppError } from '../kernel/errors.js';
import { isoTime, type Clock } from '../kernel/clock.js';
import type { DialectName } from '../kernel/db/database.js';
import { periodicTask } from '../kernel/periodic-task.js';
import type { Kysely } from 'kysely';
import type { Database } from '../kernel/db/schema.js';
import { createOrganizationsRepository, leaveAllOrganizations, lockOrganizationsOf, type ApiKeysService, type OrganizationCache } from '../access/index.js';
import { createUsersRepository, type AccountCache, type SessionsService, type UsersRepository } from '../identity/index.js';

const PURGE_EVERY_MS = 3600_000;
const BATCH = 100;

export interface AccountPurgeDeps {
  users: UsersRepository;
  dialect: DialectName;
  sessions: Pick<SessionsService, 'idsOf' | 'forget'>;
  apiKeys: Pick<ApiKeysService, 'hashesOf' | 'forget'>;
  accounts: AccountCache;
  organizations: Pick<OrganizationCache, 'membershipChanged'>;
  clock: Clock;
  onError: (error: unknown) => void;
  warn: (detail: Record<string, unknown>, message: string) => void;
  /** A guest unused this many days is purged (GUEST_RETENTION_DAYS). */
  guestRetentionDays: number;
  /** Tells the owner their deletion was called off (the last owner of `organization`, a name, which has other members). */
  notifyCalledOff: (user: { email: string; name: string }, organization: string) => void;
}

/**
 * Deleting an account for good: the user, their personal organization and every organization
 * they are alone in, with all those hold (users.repository.ts `delete`). At once when
 * ACCOUNT_DELETION_GRACE_DAYS is 0; otherwise the hourly sweep here purges the accounts whose
 * `deletion_due_at` has passed. Running on every instance is harmless: each account is re-read
 * (locked on PostgreSQL) in the deleting transaction, so a second instance, or a sign-in that
 * restored it meanwhile, finds nothing due.
 */
export function createAccountPurge(deps: AccountPurgeDeps) {
  const { users, clock } = deps;

  /**
   * Deletes the account now; with `dueBy`, only if its deletion is still scheduled at or before
   * then (false otherwise). Throws 409 last_owner, changing nothing, while it is the last owner of
   * an organization with other members.
   */
  async function purgeAccount(userId: string, dueBy?: string): Promise<boolean> {
    return purge(userId, dueBy === undefined ? undefined : async (trx) => {
      const read = trx.selectFrom('users').select('deletion_due_at').where('id', '=', userId);
      const row = await (deps.dialect === 'postgres' ? read.forUpdate() : read).executeTakeFirst();
      return row !== undefined && row.deletion_due_at !== null && row.deletion_due_at <= dueBy;
    });
  }

  /**
   * The deletion itself; `stillDue`, read in the deleting transaction (locked on PostgreSQL), says
   * whether the reason to delete still holds (false: nothing happens).
   */
  async function purge(userId: string, stillDue?: (trx: Kysely<Database>) => Promise<boolean>): Promise<boolean> {
    // Read first, announced once the account is gone: a refused deletion (last_owner) signs nobody out.
    const sessionIds = await deps.sessions.idsOf(userId);
    const hashes = await deps.apiKeys.hashesOf(userId);
    const orgIds = await users.db.transaction().execute(async (trx) => {
      await lockOrganizationsOf(trx, userId, deps.dialect);
      if (stillDue && !(await stillDue(trx))) return null;
      const orgIds = await leaveAllOrganizations(trx, userId);
      if (orgIds.length > 0) await createUsersRepository(trx).delete(userId);
      return orgIds;
    });
    if (orgIds === null) return false;
    await deps.sessions.forget(sessionIds);
    await deps.apiKeys.forget(hashes);
    await deps.accounts.changed(userId);
    for (const orgId of orgIds) await deps.organizations.membershipChanged(orgId, userId);
    return true;
  }

  /**
   * The deletion of an account that became the last owner of `orgId` (with other members) during
   * its grace is cancelled; the instance whose cancellation took effect (sweeps may run on several
   * at once) logs it and mails the owner.
   */
  async function callOff(userId: string, orgId: string): Promise<void> {
    if (!(await users.cancelDeletion(userId))) return;
    await deps.accounts.changed(userId);
    deps.warn({ user_id: userId, organization_id: orgId }, 'account deletion cancelled: last owner of a team with other members');
    const [user, org] = await Promise.all([users.findById(userId), createOrganizationsRepository(users.db).findById(orgId)]);
    if (user) deps.notifyCalledOff(user, org?.name ?? orgId);
  }

  /**
   * Purges every account due now, a batch at a time. One that became the last owner of a team
   * with other members during its grace (someone accepted an invitation, the other owner left)
   * has its deletion cancelled, with a warning; one failure does not stop the others.
   */
  async function purgeOnce(): Promise<number> {
    const nowIso = isoTime(clock.now());
    let purged = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await users.dueForDeletion(nowIso, BATCH, after);
      for (const id of ids) {
        try {
          if (await purgeAccount(id, nowIso)) purged++;
        } catch (error) {
          if (error instanceof AppError && error.code === 'last_owner') {
            // Past its grace the account can no longer sign in, and the team still needs its owner:
            // postponing would strand both. The deletion is called off instead; the owner signs in
            // as before (their sessions and keys stay revoked), hands the team on, and asks again.
            await callOff(id, String(error.extra.organization_id)).catch(deps.onError);
          } else deps.onError(error);
        }
      }
      if (ids.length < BATCH) return purged;
      after = ids.at(-1);
    }
  }

  /**
   * Deletes the guests unused for GUEST_RETENTION_DAYS, with all they made. Each is re-read in
   * its deleting transaction: one that upgraded or signed in meanwhile stays.
   */
  async function purgeIdleGuests(): Promise<number> {
    const cutoff = isoTime(clock.now() - deps.guestRetentionDays * 86_400_000);
    const stillIdle = (userId: string) => async (trx: Kysely<Database>) => {
      const read = trx.selectFrom('users').select('is_anonymous').where('id', '=', userId);
      const row = await (deps.dialect === 'postgres' ? read.forUpdate() : read).executeTakeFirst();
      if (row?.is_anonymous !== 1) return false;
      const used = await trx.selectFrom('sessions').select('id').where('user_id', '=', userId).where('last_used_at', '>=', cutoff).executeTakeFirst();
      return used === undefined;
    };
    let purged = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await users.idleGuests(cutoff, BATCH, after);
      for (const id of ids) {
        try {
          if (await purge(id, stillIdle(id))) purged++;
        } catch (error) {
          deps.onError(error);
        }
      }
      if (ids.length < BATCH) return purged;
      after = ids.at(-1);
    }
  }

  /** One sweep: accounts whose deletion is due, then idle guests. */
  async function sweep(): Promise<number> {
    return (await purgeOnce()) + (await purgeIdleGuests());
  }

  return { purgeAccount, purgeOnce, purgeIdleGuests, ...periodicTask(sweep, PURGE_EVERY_MS, deps.onError) };
}
export type AccountPurge = ReturnType<typeof createAccountPurge>;
