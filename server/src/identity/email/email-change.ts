import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError, fieldError, tooManyAttempts } from '../../kernel/errors.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { Mailer } from '../../kernel/mail/mailer.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { SecurityLog } from '../security-log/security-log.js';
import { normalizeEmail } from '../users/users.repository.js';
import type { EmailTokens } from './email-tokens.js';
import type { LinkFollower } from '../users/unproven-address.js';

export type { LinkFollower };
import type { MailLink, MailTemplates } from './mail-templates.js';

/** Changes asked for per account and hour (a mail each, or a taken address), as many as verification resends. */
const CHANGE_MAILS_PER_HOUR = 3;

export interface EmailChangeDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  tokens: EmailTokens;
  attempts: AttemptLimiter;
  securityLog: SecurityLog;
  link: (page: string, token: string) => MailLink;
  mails: Pick<MailTemplates, 'emailChangeMail' | 'emailChangedMail'>;
  sendLater: (send: () => Promise<void>) => void;
}

/** What a confirmed change did, for what follows the commit. */
export interface EmailChanged {
  userId: string;
  name: string;
  from: string;
  to: string;
  recorded: RecordedEvent;
}

const taken = () => new AppError('email_taken', 'Another account uses this email address.');


/**
 * A change of the sign-in address takes two proofs: the link mailed to the NEW address, followed
 * (POST /v1/auth/email/verify) by the account's owner signed in (the access token of the same
 * account). The link alone is not enough: it proves only the inbox, and a mistyped address (or a
 * catch-all typo domain such as gmial.com) hands that inbox to a stranger, who would otherwise
 * take the sign-in address and with it the account. The session alone is not enough either: a
 * stolen session cannot move the account to an address its owner does not hold. A refused
 * follower leaves the link unspent, for the owner to use once signed in. The old address hears of
 * the change.
 */
export function createEmailChange(deps: EmailChangeDeps) {
  const { db, clock, tokens } = deps;

  return {
    /** Mails the confirmation link to `email`; the caller has confirmed it is the owner. Returns the pending address. */
    async request(userId: string, email: string, client: ClientInfo): Promise<string> {
      const user = await db.selectFrom('users').select(['email_normalized', 'name']).where('id', '=', userId).executeTakeFirst();
      if (!user) throw new AppError('invalid_token', 'The account behind this credential no longer exists.');
      const to = email.trim();
      const normalized = normalizeEmail(to);
      if (normalized === user.email_normalized) throw fieldError('/email', 'unchanged', 'This is already the email address of the account.');
      // A taken address costs like a mail: otherwise a signed-in account could ask "is this
      // address registered?" at the account-route rate instead of a few times an hour.
      const decision = await deps.attempts.take([{ key: `change-email-mail:${userId}`, limit: CHANGE_MAILS_PER_HOUR, windowSeconds: 3600 }]);
      if (!decision.allowed) throw tooManyAttempts('Too many email changes asked for; try again later.', decision.retryAfterSeconds);
      if (await db.selectFrom('users').select('id').where('email_normalized', '=', normalized).executeTakeFirst()) throw taken();
      // Only the newest request can be confirmed: an earlier link (to another address) dies here.
      const token = await db.transaction().execute(async (trx) => {
        await tokens.voidPending(trx, userId, ['change_email']);
        return tokens.issue(trx, userId, 'change_email', to);
      });
      deps.sendLater(() => deps.mailer.send(deps.mails.emailChangeMail(to, user.name, deps.link('verify-email', token))));
      await deps.securityLog.record(userId, 'email_change_requested', client, { to });
      return to;
    },

    /**
     * Before the link is spent: only the account's owner, signed in, confirms its change (see
     * above). Throws the follower's refusal, or 403 for another account's session.
     */
    admit(follower: LinkFollower, ownerId: string): void {
      if ('refused' in follower) throw follower.refused;
      if (follower.userId !== ownerId) {
        throw new AppError('forbidden', 'This link changes the email address of another account than the one signed in: sign in to that account with its current address, then open the link again.');
      }
    },

    /**
     * In the transaction that spent the token: the account takes the new address, confirmed (the
     * link came to it). Every other mailed link of the account dies, so the old address keeps no
     * way in (a reset link sent there an hour ago). Throws email_taken when another account took
     * the address meanwhile (the caller also maps a unique violation, for a race at this moment).
     */
    async apply(trx: Kysely<Database>, userId: string, email: string): Promise<EmailChanged> {
      const user = await trx.selectFrom('users').select(['email', 'name']).where('id', '=', userId).executeTakeFirst();
      if (!user) throw new AppError('invalid_token', 'This link is not valid any more.');
      const normalized = normalizeEmail(email);
      if (await trx.selectFrom('users').select('id').where('email_normalized', '=', normalized).where('id', '!=', userId).executeTakeFirst()) throw taken();
      const now = isoTime(clock.now());
      await trx.updateTable('users').set({ email, email_normalized: normalized, email_verified: 1, updated_at: now }).where('id', '=', userId).execute();
      await tokens.voidPending(trx, userId, ['reset_password', 'verify_email', 'change_email']);
      const recorded = await recordEvent(trx, clock, { userId, type: 'user.email.changed', data: { id: userId, email, previous_email: user.email, updated_at: now } });
      return { userId, name: user.name, from: user.email, to: email, recorded };
    },

    /** After the commit: the security log, and a notice to the address that no longer signs in. */
    async announce(changed: EmailChanged, client: ClientInfo): Promise<void> {
      await deps.securityLog.record(changed.userId, 'email_changed', client, { from: changed.from, to: changed.to });
      const when = isoTime(clock.now());
      deps.sendLater(() => deps.mailer.send(deps.mails.emailChangedMail(changed.from, changed.name, changed.to, when)));
    },

    taken,
  };
}
export type EmailChange = ReturnType<typeof createEmailChange>;
