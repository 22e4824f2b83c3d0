import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError, tooManyAttempts } from '../../kernel/errors.js';
import { isGuestAddress, isReleasedAddress } from '../../kernel/email-address.js';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { Mailer } from '../../kernel/mail/mailer.js';
import type { AccountCache } from '../users/account-cache.js';
import { admitUnprovenConfirmation, holdsUnprovenAddress, logRemovedSignInMethods, removeUnprovenSignInMethods } from '../users/unproven-address.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { assertPasswordAcceptable } from '../passwords/password-policy.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { normalizeEmail, type UserRow } from '../users/users.repository.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import type { EmailTokens } from './email-tokens.js';
import { createEmailChange, type EmailChanged, type LinkFollower } from './email-change.js';
import { mailLinks } from './mail-links.js';
import type { MailTemplates } from './mail-templates.js';

const RESEND_PER_HOUR = 3;
const RESET_MAILS_PER_HOUR = 3;

export interface AccountEmailDeps {
  db: Kysely<Database>;
  clock: Clock;
  publicUrl: string;
  /** APP_LINK_URL: mailed links open the app there instead of PUBLIC_URL's pages. */
  appLinkUrl?: string | undefined;
  /** The mails, in the product's name (PRODUCT_NAME). */
  mails: MailTemplates;
  mailer: Mailer;
  tokens: EmailTokens;
  hasher: PasswordHasher;
  sessions: SessionsService;
  /** A reset that revokes API keys does it in its own transaction (access/api-keys implements it). */
  apiKeys: { revokeAllWithin(trx: Kysely<Database>, userId: string): Promise<{ ids: string[]; announce(): Promise<void> }> };
  accounts: AccountCache;
  attempts: AttemptLimiter;
  securityLog: SecurityLog;
  onError: (error: unknown) => void;
  onEvent?: OnEventsCommitted;
}

/** Address verification, change of address and password reset by mail. */
export function createAccountEmailService(deps: AccountEmailDeps) {
  const { db, clock, mailer, tokens } = deps;
  const link = mailLinks(deps);
  const { accountRestoredMail, deletionCalledOffMail, deletionScheduledMail, passwordChangedMail, securityChangeMail, resetMail, verificationMail } = deps.mails;
  // Mail goes out after the answer: SMTP latency (or an outage) must not slow or fail the request.
  const sendLater = (send: () => Promise<void>) => void setImmediate(() => void send().catch(deps.onError));

  const emailChange = createEmailChange({ db, clock, mailer, tokens, attempts: deps.attempts, securityLog: deps.securityLog, link, sendLater, mails: deps.mails });

  async function sendVerification(user: UserRow): Promise<void> {
    const token = await tokens.issue(db, user.id, 'verify_email', user.email);
    sendLater(() => mailer.send(verificationMail(user.email, user.name, link('verify-email', token))));
  }

  return {
    sendVerification,

    async resendVerification(userId: string): Promise<void> {
      const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
      if (user.email_verified) throw new AppError('conflict', 'This email address is already verified.');
      // The reserved address an account holds after giving an unproven one up routes nowhere.
      if (isReleasedAddress(user.email)) throw new AppError('conflict', 'This account has no email address yet: set one by a change of email (Settings), which mails its own link.');
      if (isGuestAddress(user.email)) throw new AppError('conflict', 'A guest account has no email address: upgrade it with one (POST /v1/users/me/upgrade).');
      // An address a provider claimed (accounts/unproven-address.ts) may be mailed too: its link
      // confirms only when followed signed in as this account, so the claimant who has it sent to
      // someone else's inbox gains nothing, and the provider's real users can confirm theirs.
      const decision = await deps.attempts.take([{ key: `verify-mail:${userId}`, limit: RESEND_PER_HOUR, windowSeconds: 3600 }]);
      if (!decision.allowed) {
        throw tooManyAttempts('Too many verification mails; try again later.', decision.retryAfterSeconds);
      }
      await sendVerification(user);
    },

    /** Mails a confirmation link to the new address (email-change.ts); the caller confirmed the owner. */
    requestEmailChange: (userId: string, email: string, client: ClientInfo): Promise<string> => emailChange.request(userId, email, client),

    /**
     * Every link that confirms an address ends here; the token's purpose decides what it does:
     * confirm the account's address (anyone holding the link may, except for an address a
     * provider claimed: then only `follower` signed in as that account, accounts/unproven-address.ts),
     * or make a new one (a change of email) its sign-in address, which only `follower` signed in
     * as the account's owner may (email-change.ts); refused, the link stays unspent.
     */
    async verify(token: string, client: ClientInfo, follower: LinkFollower): Promise<void> {
      let outcome: { userId: string; changed?: EmailChanged };
      try {
        outcome = await db.transaction().execute(async (trx) => {
          const { userId, email, purpose } = await tokens.consume(trx, token, ['verify_email', 'change_email'], async (found) => {
            if (found.purpose === 'change_email') return emailChange.admit(follower, found.userId);
            const owner = await trx.selectFrom('users').select(['email_verified', 'password_hash']).where('id', '=', found.userId).executeTakeFirst();
            if (owner && holdsUnprovenAddress(owner)) admitUnprovenConfirmation(follower, found.userId);
          });
          if (purpose === 'change_email') return { userId, changed: await emailChange.apply(trx, userId, email) };
          // The link confirms the address it was sent to, not whatever the account holds now
          // (conditional: a registration may take a provider-claimed address at this moment).
          const confirmed = await trx.updateTable('users').set({ email_verified: 1, updated_at: isoTime(clock.now()) })
            .where('id', '=', userId).where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
          if (Number(confirmed.numUpdatedRows) !== 1) throw new AppError('invalid_token', 'This link is for an address the account no longer uses.');
          return { userId };
        });
      } catch (error) {
        // Another account took the address between the check and the update.
        if (isUniqueViolation(error)) throw emailChange.taken();
        throw error;
      }
      await deps.accounts.changed(outcome.userId);
      if (!outcome.changed) return deps.securityLog.record(outcome.userId, 'email_verified', client);
      deps.onEvent?.(outcome.changed.recorded);
      await emailChange.announce(outcome.changed, client);
    },

    /**
     * Answers at once and does the work afterwards, so a known and an unknown address are
     * indistinguishable in status, body and time. Mails per address are capped (no mail bombs).
     */
    requestReset(email: string, client: ClientInfo): void {
      sendLater(async () => {
        const user = await db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
        if (!user || user.disabled) return;
        if (!(await deps.attempts.take([{ key: `reset-mail:${user.id}`, limit: RESET_MAILS_PER_HOUR, windowSeconds: 3600 }])).allowed) return;
        const token = await tokens.issue(db, user.id, 'reset_password', user.email);
        await mailer.send(resetMail(user.email, user.name, link('reset-password', token)));
        await deps.securityLog.record(user.id, 'password_reset_requested', client);
      });
    },

    /**
     * Sets the new password and signs out every session; with `revokeApiKeys` (a reset usually
     * follows a compromise) every API key goes too, in the same transaction as the password. The
     * link came by mail, so following it confirms the address as a verification link would.
     */
    async reset(token: string, password: string, client: ClientInfo, options: { revokeApiKeys?: boolean } = {}): Promise<void> {
      // Check the password before spending the token, so a refused password leaves the link usable.
      assertPasswordAcceptable(password, '/password');
      const hash = await deps.hasher.hash(password);
      const { user, keys, unproven } = await db.transaction().execute(async (trx) => {
        const { userId } = await tokens.consume(trx, token, ['reset_password']);
        const row = await trx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
        if (!row) throw new AppError('invalid_token', 'This link is not valid any more.');
        assertPasswordAcceptable(password, '/password', { email: row.email });
        await trx.updateTable('users').set({ password_hash: hash, email_verified: 1, updated_at: isoTime(clock.now()) }).where('id', '=', userId).execute();
        // The link proves the inbox only now: whatever sign-in methods the account had before (a
        // provider that claimed the address, a passkey) were not its owner's to add, and go (issue 31).
        const unproven = row.email_verified !== 1 ? await removeUnprovenSignInMethods(trx, clock, userId) : undefined;
        return { user: row, keys: options.revokeApiKeys ? await deps.apiKeys.revokeAllWithin(trx, userId) : undefined, unproven };
      });
      for (const recorded of unproven?.recorded ?? []) deps.onEvent?.(recorded);
      if (unproven) await logRemovedSignInMethods(deps.securityLog, user.id, unproven, client);
      await keys?.announce();
      await deps.sessions.revokeAll(user.id, 'password_reset');
      await deps.accounts.changed(user.id);
      await deps.attempts.reset(`login-fail:email:${user.email_normalized}`);
      await deps.securityLog.record(user.id, 'password_reset', client, keys ? { api_keys_revoked: keys.ids.length } : undefined);
      for (const id of keys?.ids ?? []) await deps.securityLog.record(user.id, 'api_key_revoked', client, { api_key_id: id, reason: 'password_reset' });
      sendLater(() => mailer.send(passwordChangedMail(user.email, user.name, isoTime(clock.now()))));
    },

    /** After a signed-in password change: tell the owner by mail too. */
    notifyPasswordChanged(user: { email: string; name: string }): void {
      sendLater(() => mailer.send(passwordChangedMail(user.email, user.name, isoTime(clock.now()))));
    },

    /** The account was scheduled for deletion at `due` (accounts/account-deletion.ts). */
    notifyDeletionScheduled(user: { email: string; name: string }, due: string): void {
      sendLater(() => mailer.send(deletionScheduledMail(user.email, user.name, due)));
    },

    /** A sign-in during the grace period cancelled the deletion. */
    notifyRestored(user: { email: string; name: string }): void {
      sendLater(() => mailer.send(accountRestoredMail(user.email, user.name, isoTime(clock.now()))));
    },

    /** The purge called the deletion off: the account is the last owner of `organization`, which has other members. */
    notifyDeletionCalledOff(user: { email: string; name: string }, organization: string): void {
      sendLater(() => mailer.send(deletionCalledOffMail(user.email, user.name, organization)));
    },

    /** `change` is a sentence without its end: "Two-step verification was turned on". */
    notifySecurityChange(user: { email: string; name: string }, change: string): void {
      sendLater(() => mailer.send(securityChangeMail(user.email, user.name, change, isoTime(clock.now()))));
    },
  };
}
export type AccountEmailService = ReturnType<typeof createAccountEmailService>;
