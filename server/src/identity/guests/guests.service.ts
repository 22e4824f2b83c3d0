import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import { guestAddress, normalizeEmail } from '../../kernel/email-address.js';
import { AppError, tooManyAttempts } from '../../kernel/errors.js';
import { cleanName } from '../../kernel/names.js';
import { recordEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { newId } from '../../kernel/ids.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { assertPasswordAcceptable } from '../passwords/password-policy.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import type { AccountCache } from '../users/account-cache.js';
import { createUsersRepository, newUserRow, NO_PASSWORD, type CreatePersonalOrganization, type UserRow } from '../users/users.repository.js';

/** Guests one IP may make in an hour: a guest is cheap to make, so farming them is capped. */
const GUESTS_PER_IP_PER_HOUR = 30;
/**
 * Upgrades one IP may fail in an hour. 409 `email_taken` tells whether an address has an account,
 * as a registration does; guests are cheap and the route's own limit is the account routes'
 * (hundreds a minute), so without this a farm of guests would ask far faster than registrations may.
 */
const FAILED_UPGRADES_PER_IP_PER_HOUR = 30;
const GUEST_NAME = 'Guest';

export interface GuestsDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** ANONYMOUS_SIGN_IN: off, POST /v1/auth/anonymous is 404. */
  enabled: boolean;
  sessions: SessionsService;
  hasher: PasswordHasher;
  attempts: AttemptLimiter;
  accounts: AccountCache;
  securityLog: SecurityLog;
  createPersonalOrganization: CreatePersonalOrganization;
  /** The new address is confirmed by mail, as after a registration (email/ sends it). */
  sendVerification: (user: UserRow) => Promise<void>;
  onEvent?: OnEventsCommitted;
}

/** What a guest becomes: an address of its own, and optionally a password and a name. */
export interface GuestUpgrade {
  email: string;
  password?: string | undefined;
  name?: string | undefined;
}

/**
 * Guest accounts: "try without an account". A guest is an ordinary account with its personal
 * organization on the free tier, made with one click, without an address (it holds a `.invalid`
 * placeholder) and flagged `is_anonymous`; the routes that would give it a lasting credential or a
 * team refuse it (RoutePolicy.guests). An upgrade gives it an address (confirmed by mail as after
 * a registration) and keeps its id, so everything it made stays. Unused guests are purged
 * (flows/deletion-purge.ts, GUEST_RETENTION_DAYS).
 */
export function createGuests(deps: GuestsDeps) {
  const { db, clock } = deps;

  /**
   * Turns the guest row into an ordinary account, in `trx`: conditional on it still being a guest,
   * so two upgrades (or an upgrade and a provider sign-in that links) cannot both apply. Returns
   * false when it was no guest any more. The unique address index refuses an address in use.
   */
  async function upgradeRow(trx: Kysely<Database>, userId: string, changes: { email: string; emailVerified: boolean; passwordHash: string; name?: string | undefined }): Promise<boolean> {
    const updated = await trx.updateTable('users').set({
      email: changes.email, email_normalized: normalizeEmail(changes.email), email_verified: changes.emailVerified ? 1 : 0,
      password_hash: changes.passwordHash, is_anonymous: 0, updated_at: isoTime(clock.now()), ...(changes.name ? { name: changes.name } : {}),
    }).where('id', '=', userId).where('is_anonymous', '=', 1).executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  return {
    upgradeRow,

    /** A new guest and its first session (`amr` `anonymous`). */
    async signIn(client: ClientInfo): Promise<TokenResponse> {
      if (!deps.enabled) throw new AppError('not_found', 'Guest sign-in is not offered here (ANONYMOUS_SIGN_IN).');
      const taken = await deps.attempts.take([{ key: `guest-sign-in:ip:${client.ip}`, limit: GUESTS_PER_IP_PER_HOUR, windowSeconds: 3600 }]);
      if (!taken.allowed) throw tooManyAttempts('Too many guest accounts from this address; try again later.', taken.retryAfterSeconds);
      const id = newId('user');
      const row = newUserRow({ id, email: guestAddress(id), name: GUEST_NAME, passwordHash: NO_PASSWORD, emailVerified: false, nowIso: isoTime(clock.now()), anonymous: true });
      await db.transaction().execute((trx) => createUsersRepository(trx).insert(row, deps.createPersonalOrganization));
      const tokens = await deps.sessions.start(id, client, { amr: ['anonymous'], factorProved: false });
      await deps.securityLog.record(id, 'sign_in', client, { method: 'anonymous' });
      return tokens;
    },

    /**
     * The guest becomes an ordinary account with the same id and all it made: the address (mailed
     * for confirmation), the password if given (the policy's rules), the name if given.
     */
    async upgrade(userId: string, input: GuestUpgrade, client: ClientInfo): Promise<UserRow> {
      const email = input.email.trim();
      // Trimmed and not blank, as a registration's and a rename's.
      const name = input.name === undefined ? undefined : cleanName(input.name);
      if (input.password !== undefined) assertPasswordAcceptable(input.password, '/password', { email });
      // Counted before the address is tried (concurrent tries get no more answers than the limit), given back when it took.
      const attempt = [{ key: `guest-upgrade:ip:${client.ip}`, limit: FAILED_UPGRADES_PER_IP_PER_HOUR, windowSeconds: 3600 }];
      const taken = await deps.attempts.take(attempt);
      if (!taken.allowed) throw tooManyAttempts('Too many failed upgrades from this address; try again later.', taken.retryAfterSeconds);
      const passwordHash = input.password === undefined ? NO_PASSWORD : await deps.hasher.hash(input.password);
      const notGuest = new AppError('conflict', 'This account is not a guest: change its address in Settings instead.');
      let recorded;
      try {
        recorded = await db.transaction().execute(async (trx) => {
          if (!(await upgradeRow(trx, userId, { email, emailVerified: false, passwordHash, name }))) throw notGuest;
          const row = await trx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
          return { row, event: await recordEvent(trx, clock, { userId, type: 'user.updated', data: { id: userId, email: row.email, name: row.name, updated_at: row.updated_at } }) };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('email_taken', 'An account with this email already exists: sign in to it instead (the guest keeps what it made).');
        throw error;
      }
      await deps.attempts.giveBack(attempt);
      deps.onEvent?.(recorded.event);
      await deps.accounts.changed(userId);
      await deps.securityLog.record(userId, 'guest_upgraded', client);
      await deps.sendVerification(recorded.row);
      return recorded.row;
    },
  };
}
export type Guests = ReturnType<typeof createGuests>;
