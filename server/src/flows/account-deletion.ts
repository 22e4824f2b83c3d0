import type { ClientInfo } from '../kernel/client-info.js';
import { AppError } from '../kernel/errors.js';
import { isoTime, type Clock } from '../kernel/clock.js';
import { assertMayLeaveAll, createInvitationsRepository, type ApiKeysService } from '../access/index.js';
import { createUsersRepository, type AccountCache, type EmailTokens, type SecurityLog, type SessionsService, type UserRow, type UsersRepository, type UsersService } from '../identity/index.js';
import type { AccountPurge } from './deletion-purge.js';

const DAY_MS = 86_400_000;

export interface AccountDeletionDeps {
  users: UsersRepository;
  confirmIdentity: UsersService['confirmIdentity'];
  sessions: Pick<SessionsService, 'revokeAll'>;
  apiKeys: Pick<ApiKeysService, 'revokeAllWithin'>;
  tokens: Pick<EmailTokens, 'voidPending'>;
  accounts: AccountCache;
  purge: Pick<AccountPurge, 'purgeAccount'>;
  securityLog: SecurityLog;
  notify: {
    deletionScheduled(user: { email: string; name: string }, due: string): void;
    restored(user: { email: string; name: string }): void;
  };
  clock: Clock;
  /** ACCOUNT_DELETION_GRACE_DAYS: 0 deletes at once. */
  graceDays: number;
}

/** The sign-in of an account past its grace: the same 401 as an account that does not exist. */
const gone = () => new AppError('invalid_credentials', 'The sign-in was not accepted: the credentials are wrong, or the account no longer exists.');

/**
 * Deleting one's own account with a grace period (DELETE /v1/users/me). Asking for it signs the
 * account out everywhere and revokes every API key it created, at once and on every instance, and
 * schedules the purge (deletion-purge.ts). Until then a sign-in (password, passkey, provider)
 * restores the account; the revoked keys stay revoked.
 */
export function createAccountDeletion(deps: AccountDeletionDeps) {
  const { users, clock } = deps;

  return {
    /**
     * After the owner confirmed it (the password, or a recent sign-in on an account without one).
     * 409 last_owner, with nothing revoked, while the account is the last owner of a team with
     * other members. Returns when the account and its data will be gone.
     */
    async schedule(userId: string, sessionId: string, password: string | undefined, client: ClientInfo): Promise<{ deletion_due_at: string }> {
      await deps.confirmIdentity(userId, sessionId, password, '/password');
      const now = clock.now();
      if (deps.graceDays === 0) {
        await deps.purge.purgeAccount(userId);
        return { deletion_due_at: isoTime(now) };
      }
      const due = isoTime(now + deps.graceDays * DAY_MS);
      const { user, keys } = await users.db.transaction().execute(async (trx) => {
        const repo = createUsersRepository(trx);
        const { alone } = await assertMayLeaveAll(trx, userId);
        const row = await repo.findById(userId);
        if (!row) throw new AppError('invalid_token', 'The account behind this credential no longer exists.');
        await repo.update(userId, { deletion_due_at: due, updated_at: isoTime(now) });
        // The organizations it is alone in go with it: an invitation accepted during the grace would
        // make it the last owner of a team and stop the purge. Withdrawn, and not given back.
        await createInvitationsRepository(trx).revokeOpenIn(alone, isoTime(now));
        // A pending change of email must not move an account on its way out.
        await deps.tokens.voidPending(trx, userId, ['change_email']);
        return { user: row, keys: await deps.apiKeys.revokeAllWithin(trx, userId) };
      });
      await keys.announce();
      const sessions = await deps.sessions.revokeAll(userId, 'account_deletion');
      await deps.accounts.changed(userId);
      await deps.securityLog.record(userId, 'account_deletion_scheduled', client, { deletion_due_at: due, sessions_revoked: sessions.length, api_keys_revoked: keys.ids.length });
      deps.notify.deletionScheduled(user, due);
      return { deletion_due_at: due };
    },

    /**
     * Every way of signing in calls this once the credential and the sign-in rules passed, before
     * the session starts: an account scheduled for deletion is restored (the deletion cancelled);
     * one past its grace is refused as if it were gone already (the sweep may not have run yet).
     */
    async restoreOnSignIn(user: Pick<UserRow, 'id' | 'email' | 'name' | 'deletion_due_at'>, client: ClientInfo): Promise<void> {
      if (user.deletion_due_at === null) return;
      if (user.deletion_due_at <= isoTime(clock.now())) throw gone();
      if (!(await users.cancelDeletion(user.id))) {
        // Another sign-in restored it a moment ago, or the sweep purged it meanwhile.
        if (!(await users.findById(user.id))) throw gone();
        return;
      }
      await deps.accounts.changed(user.id);
      await deps.securityLog.record(user.id, 'account_restored', client, { deletion_due_at: user.deletion_due_at });
      deps.notify.restored(user);
    },
  };
}
export type AccountDeletion = ReturnType<typeof createAccountDeletion>;
