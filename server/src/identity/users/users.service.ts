import { AppError, fieldError, tooManyAttempts } from '../../kernel/errors.js';
import { cleanName } from '../../kernel/names.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import { newId } from '../../kernel/ids.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { assertPasswordAcceptable } from '../passwords/password-policy.js';
import type { AccountCache } from './account-cache.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { holdsUnprovenAddress, releasedAddress, yieldAddress } from './unproven-address.js';
import type { SecurityLog } from '../security-log/security-log.js';
import { createUsersRepository, hasPassword, newUserRow, type UserRow, type UsersRepository } from './users.repository.js';
import type { CreatePersonalOrganization } from './users.repository.js';

/** Wrong current passwords per account in this window, the same budget as failed logins. */
const PASSWORD_CHECK_WINDOW_S = 15 * 60;

export interface UsersServiceDeps {
  /** Makes a new account's personal organization in its transaction (access implements it). */
  createPersonalOrganization: CreatePersonalOrganization;
  /**
   * Counts wrong current passwords (password change, change of email, account deletion) per account: whoever holds
   * a stolen access token must not be able to guess the password at the account's request rate.
   */
  attempts: AttemptLimiter;
  maxFailures: number;
  users: UsersRepository;
  sessions: Pick<SessionsService, 'startedAt' | 'revokeAll'>;
  accounts: AccountCache;
  hasher: PasswordHasher;
  /** On an account without a password, how recent a sign-in must be to confirm a sensitive change (confirmIdentity). */
  recentSignInSeconds: number;
  clock: Clock;
  onEvent?: OnEventsCommitted;
  /** Records on an account that a registration took its unproven address. */
  securityLog?: Pick<SecurityLog, 'record'>;
}

export function createUsersService(deps: UsersServiceDeps) {
  const { users, hasher, clock, accounts } = deps;

  /** Read through the account cache (the authenticate step has usually just filled it). */
  async function requireUser(userId: string): Promise<UserRow> {
    const user = await accounts.get(userId);
    // The token outlived its account (deleted elsewhere): the credential is no longer valid.
    if (!user) throw new AppError('invalid_token', 'The account behind this credential no longer exists.');
    return user;
  }

  /** Password checks read the row itself, never a cached copy. */
  async function freshUser(userId: string): Promise<UserRow> {
    const user = await users.findById(userId);
    if (!user) throw new AppError('invalid_token', 'The account behind this credential no longer exists.');
    return user;
  }

  /** Taken before the hash is checked and given back when it matched (see kernel/limits/limiter.ts). */
  async function checkPassword(user: UserRow, password: string, field: string): Promise<void> {
    const attempt = [{ key: `password-check-fail:user:${user.id}`, limit: deps.maxFailures, windowSeconds: PASSWORD_CHECK_WINDOW_S }];
    if (!hasPassword(user)) throw fieldError(field, 'no_password', 'This account has no password yet: set one with “Forgot password”, or use the sign-in method it has.');
    const taken = await deps.attempts.take(attempt);
    if (!taken.allowed) throw tooManyAttempts('Too many wrong passwords; try again later.', taken.retryAfterSeconds);
    if (!(await hasher.verify(user.password_hash, password))) throw fieldError(field, 'incorrect_password', 'The password is not correct.');
    await deps.attempts.giveBack(attempt);
  }

  /**
   * The owner confirms a sensitive change: with the password when the account has one (a wrong
   * one is a field error at `field`; throttled), else (made through a provider or with passkeys)
   * with a sign-in within the last `recentSignInSeconds`. Whoever holds only a stolen access
   * token can do neither.
   */
  async function confirmIdentity(userId: string, sessionId: string, password: string | undefined, field: string): Promise<UserRow> {
    return confirmUser(await freshUser(userId), sessionId, password, field);
  }
  async function confirmUser(user: UserRow, sessionId: string, password: string | undefined, field: string): Promise<UserRow> {
    const userId = user.id;
    if (hasPassword(user)) {
      if (password === undefined) throw fieldError(field, 'required', 'Enter your password to confirm it is you.');
      await checkPassword(user, password, field);
      return user;
    }
    const startedAt = await deps.sessions.startedAt(userId, sessionId);
    if (!startedAt || Date.parse(startedAt) < clock.now() - deps.recentSignInSeconds * 1000) {
      throw new AppError('forbidden', 'Sign in again to confirm it is you, then retry within a few minutes.');
    }
    return user;
  }

  return {
    requireUser,
    confirmIdentity,

    /** The current password, confirming a change (a wrong one is a field error at `field`; throttled). */
    async confirmPassword(userId: string, password: string, field: string): Promise<void> {
      await checkPassword(await freshUser(userId), password, field);
    },

    /**
     * Confirms the owner before a new way into the account is added (an authenticator, a passkey,
     * a provider): a confirmed email address, and confirmIdentity (the password, or a recent sign-in).
     */
    async confirmOwner(userId: string, sessionId: string, password: string | undefined, field: string): Promise<void> {
      const user = await freshUser(userId);
      // Whoever registered someone else's address first must not plant a way in (a passkey, a
      // provider, an authenticator) that outlives the owner taking the account back by mail.
      if (user.email_verified !== 1) {
        throw new AppError('email_not_verified', 'Confirm your email address first: a new way into the account (an authenticator app, a passkey, a sign-in provider) needs a confirmed address.');
      }
      await confirmUser(user, sessionId, password, field);
    },

    async register(input: { email: string; password: string; name: string }): Promise<UserRow> {
      const name = cleanName(input.name);
      const email = input.email.trim();
      assertPasswordAcceptable(input.password, '/password', { email });
      // An address held only on an untrusted provider's word never blocks its owner: the
      // registration takes it (accounts/unproven-address.ts).
      const holder = await users.findByEmail(email);
      if (holder && !holdsUnprovenAddress(holder)) throw new AppError('email_taken', 'An account with this email already exists.');
      const row = newUserRow({ id: newId('user'), email, name, passwordHash: await hasher.hash(input.password), emailVerified: false, nowIso: isoTime(clock.now()) });
      let yielded = false;
      try {
        await users.db.transaction().execute(async (trx) => {
          if (holder) yielded = await yieldAddress(trx, holder.id, clock);
          await createUsersRepository(trx).insert(row, deps.createPersonalOrganization);
        });
      } catch (error) {
        // Two registrations raced past the check above (or the holder confirmed meanwhile); the unique index decides.
        if (isUniqueViolation(error)) throw new AppError('email_taken', 'An account with this email already exists.');
        throw error;
      }
      if (holder && yielded) {
        await accounts.changed(holder.id);
        await deps.securityLog?.record(holder.id, 'email_changed', undefined, { reason: 'claimed_by_registration', email: releasedAddress(holder.id) });
      }
      return row;
    },

    async update(userId: string, changes: { name?: string }): Promise<UserRow> {
      const user = await requireUser(userId);
      if (changes.name === undefined) return user;
      const next = { name: cleanName(changes.name), updated_at: isoTime(clock.now()) };
      const recorded = await users.db.transaction().execute(async (trx) => {
        await createUsersRepository(trx).update(userId, next);
        return recordEvent(trx, clock, { userId, type: 'user.updated', data: { id: userId, email: user.email, name: next.name, updated_at: next.updated_at } });
      });
      deps.onEvent?.(recorded);
      await accounts.changed(userId);
      return { ...user, ...next };
    },

    async changePassword(userId: string, sessionId: string, input: { current_password: string; new_password: string }): Promise<void> {
      const user = await freshUser(userId);
      await checkPassword(user, input.current_password, '/current_password');
      assertPasswordAcceptable(input.new_password, '/new_password', { email: user.email });
      if (input.new_password === input.current_password) {
        throw fieldError('/new_password', 'unchanged', 'The new password must differ from the current one.');
      }
      await users.update(userId, { password_hash: await hasher.hash(input.new_password), updated_at: isoTime(clock.now()) });
      await accounts.changed(userId);
      await deps.sessions.revokeAll(userId, 'password_changed', sessionId);
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
