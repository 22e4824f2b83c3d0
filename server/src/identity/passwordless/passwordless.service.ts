import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { isUniqueViolation } from '../../kernel/db/errors.js';
import { normalizeEmail } from '../../kernel/email-address.js';
import { AppError, tooManyAttempts } from '../../kernel/errors.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { newId } from '../../kernel/ids.js';
import type { AttemptBucket, AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { Mailer } from '../../kernel/mail/mailer.js';
import { NAME_MAX } from '../../kernel/names.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import { assertMaySignIn } from '../auth/sign-in-rules.js';
import type { MailLinkTo } from '../email/mail-links.js';
import type { MailTemplates } from '../email/mail-templates.js';
import type { MfaService } from '../mfa/mfa.service.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import type { AccountCache } from '../users/account-cache.js';
import type { RestoreOnSignIn } from '../users/restore-on-sign-in.js';
import { logRemovedSignInMethods, removeUnprovenSignInMethods } from '../users/unproven-address.js';
import { createUsersRepository, newUserRow, NO_PASSWORD, type CreatePersonalOrganization, type UserRow, type UsersRepository } from '../users/users.repository.js';
import { createSignInCodesRepository, type SignInCodeRow, type SignInCodesRepository } from './sign-in-codes.repository.js';

/** How long a mailed code and its link work. */
export const SIGN_IN_CODE_TTL_S = 600;
/** Wrong guesses one code survives; then it is retired and a new one must be asked for. */
const GUESSES_PER_CODE = 5;
/** Mails per address and per IP in an hour: nobody's inbox is flooded, no IP mails the world. */
const MAILS_PER_ADDRESS_PER_HOUR = 5;
const MAILS_PER_IP_PER_HOUR = 30;
/** Wrong codes, as failed logins: per address as configured, per IP ten times that. */
const FAILURE_WINDOW_S = 15 * 60;
const IP_FAILURE_FACTOR = 10;
const LINK_PREFIX = 'gths_';

/** How the session was opened, in its `amr`: the typed code, or the mailed link. */
export type PasswordlessMethod = 'email_code' | 'email_link';

export interface PasswordlessDeps {
  db: Kysely<Database>;
  clock: Clock;
  users: Pick<UsersRepository, 'findByEmail' | 'findById'>;
  sessions: SessionsService;
  mfa: Pick<MfaService, 'isEnabled' | 'challenge'>;
  attempts: AttemptLimiter;
  maxFailures: number;
  securityLog: SecurityLog;
  accounts: AccountCache;
  mailer: Mailer;
  mails: Pick<MailTemplates, 'signInCodeMail'>;
  link: MailLinkTo;
  requireEmailVerification: boolean;
  createPersonalOrganization: CreatePersonalOrganization;
  /** An address proved by a code on an account that had not confirmed it: its API keys go too (access/api-keys). */
  apiKeys: { revokeAllWithin(trx: Kysely<Database>, userId: string): Promise<{ ids: string[]; announce(): Promise<void> }> };
  restoreAccount: RestoreOnSignIn;
  onEvent?: OnEventsCommitted;
  onError: (error: unknown) => void;
}

const codeHash = (rowId: string, code: string) => sha256Hex(`${rowId}:${code}`);

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** A new account's name, until its person sets one: the address's local part. */
const nameFromAddress = (email: string) => email.split('@')[0]!.slice(0, NAME_MAX) || 'User';

/**
 * Passwordless sign-in by mail: a 6-digit code to type, and a single-use link that does the same
 * on the device that opens it.
 *
 * `start` answers before it looks anything up, so a known and an unknown address look the same
 * (status, body, time); only its mail limits answer at once, and they count unknown addresses too.
 * `verify` takes an attempt from the per-address and per-IP buckets before it compares the code,
 * as login does with a password: of any number of concurrent guesses, at most the bucket's size
 * are checked. Each code also dies after GUESSES_PER_CODE wrong tries.
 *
 * A proved code proves the inbox. On an account that had not confirmed its address, whatever
 * way in it had (a password, a provider, a passkey, API keys) was added by someone who had not
 * proved it, possibly a squatter who registered the address first: they go, as with a mailed
 * reset, before the inbox's owner is let in.
 */
export function createPasswordlessService(deps: PasswordlessDeps) {
  const { clock, attempts } = deps;
  const codes: SignInCodesRepository = createSignInCodesRepository(deps.db);
  const now = () => isoTime(clock.now());
  // Mail goes out after the answer: SMTP latency (or an outage) must not slow or fail the request.
  const sendLater = (send: () => Promise<void>) => void setImmediate(() => void send().catch(deps.onError));

  const failureBuckets = (emailNormalized: string, ip: string): AttemptBucket[] => [
    { key: `sign-in-code-fail:email:${emailNormalized}`, limit: deps.maxFailures, windowSeconds: FAILURE_WINDOW_S },
    { key: `sign-in-code-fail:ip:${ip}`, limit: deps.maxFailures * IP_FAILURE_FACTOR, windowSeconds: FAILURE_WINDOW_S },
  ];

  async function mailCode(email: string, createAccount: boolean, client: ClientInfo): Promise<void> {
    const user = await deps.users.findByEmail(email);
    if (user ? user.disabled === 1 : !createAccount) return;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const token = newOpaqueToken(LINK_PREFIX);
    const createdMs = clock.now();
    const id = newId('signInCode');
    await codes.replace({
      id, email: user?.email ?? email, email_normalized: normalizeEmail(email), code_hash: codeHash(id, code), token_hash: sha256Hex(token),
      create_account: createAccount ? 1 : 0, failed_attempts: 0, used_at: null,
      created_at: isoTime(createdMs), expires_at: isoTime(createdMs + SIGN_IN_CODE_TTL_S * 1000),
    });
    await deps.mailer.send(deps.mails.signInCodeMail(user?.email ?? email, code, deps.link('sign-in', token)));
    if (user) await deps.securityLog.record(user.id, 'sign_in_code_requested', client);
  }

  /** The account the proved code stands for: found, or made when the request allowed it. */
  async function accountFor(row: SignInCodeRow): Promise<UserRow> {
    const existing = await deps.users.findByEmail(row.email);
    if (existing) return existing;
    if (row.create_account !== 1) throw new AppError('invalid_credentials', 'No account uses this address any more.');
    const user = newUserRow({ id: newId('user'), email: row.email, name: nameFromAddress(row.email), passwordHash: NO_PASSWORD, emailVerified: true, nowIso: now() });
    try {
      await deps.db.transaction().execute((trx) => createUsersRepository(trx).insert(user, deps.createPersonalOrganization));
      return user;
    } catch (error) {
      // Two first sign-ins of one address raced (or a registration): the other made the account.
      if (!isUniqueViolation(error)) throw error;
      const made = await deps.users.findByEmail(row.email);
      if (!made) throw error;
      return made;
    }
  }

  /** The inbox is proved now: an unconfirmed account's earlier ways in were nobody's proof, and go. */
  async function proveAddress(user: UserRow, client: ClientInfo): Promise<UserRow> {
    if (user.email_verified === 1) return user;
    const outcome = await deps.db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('users').set({ email_verified: 1, password_hash: NO_PASSWORD, updated_at: now() })
        .where('id', '=', user.id).where('email_verified', '=', 0).executeTakeFirst();
      // Confirmed meanwhile (its owner followed a verification link): nothing to take away.
      if (Number(updated.numUpdatedRows) !== 1) return undefined;
      return { removed: await removeUnprovenSignInMethods(trx, clock, user.id), keys: await deps.apiKeys.revokeAllWithin(trx, user.id) };
    });
    if (outcome) {
      for (const recorded of outcome.removed.recorded) deps.onEvent?.(recorded);
      await logRemovedSignInMethods(deps.securityLog, user.id, outcome.removed, client, 'address_proven_by_sign_in_code');
      await outcome.keys.announce();
      await deps.sessions.revokeAll(user.id, 'address_proved');
      await deps.securityLog.record(user.id, 'email_verified', client, { method: 'sign_in_code' });
    }
    await deps.accounts.changed(user.id);
    return (await deps.users.findById(user.id)) ?? user;
  }

  /** After the code or link was spent: the account, the second factor, then the session. */
  async function signIn(row: SignInCodeRow, method: PasswordlessMethod, client: ClientInfo): Promise<TokenResponse> {
    const user = await proveAddress(await accountFor(row), client);
    assertMaySignIn(user, deps.requireEmailVerification);
    if (await deps.mfa.isEnabled(user.id)) throw await deps.mfa.challenge(user.id, [method]);
    await deps.restoreAccount(user, client);
    const tokens = await deps.sessions.start(user.id, client, { amr: [method], factorProved: false });
    await deps.securityLog.record(user.id, 'sign_in', client, { method });
    return tokens;
  }

  return {
    /**
     * Takes the mail limits at once (429 when spent), then answers; the lookup and the mail come
     * after. With `createAccount` false an address without an account gets no mail.
     */
    async start(email: string, createAccount: boolean, client: ClientInfo): Promise<void> {
      const taken = await attempts.take([
        { key: `sign-in-code-mail:email:${normalizeEmail(email)}`, limit: MAILS_PER_ADDRESS_PER_HOUR, windowSeconds: 3600 },
        { key: `sign-in-code-mail:ip:${client.ip}`, limit: MAILS_PER_IP_PER_HOUR, windowSeconds: 3600 },
      ]);
      if (!taken.allowed) throw tooManyAttempts('Too many sign-in codes asked for; try again later.', taken.retryAfterSeconds);
      sendLater(() => mailCode(email.trim(), createAccount, client));
    },

    /** The typed code: counted before it is checked, per address and per IP. */
    async verifyCode(email: string, code: string, client: ClientInfo): Promise<TokenResponse> {
      const emailNormalized = normalizeEmail(email);
      const attempt = failureBuckets(emailNormalized, client.ip);
      const [taken, row] = await Promise.all([attempts.take(attempt), codes.live(emailNormalized, now(), GUESSES_PER_CODE)]);
      if (!taken.allowed) throw tooManyAttempts('Too many wrong codes; try again later.', taken.retryAfterSeconds);
      const wrong = new AppError('invalid_credentials', 'The code is not correct, was used already or has expired: check the newest mail, or ask for a new code.');
      if (!row || !sameHash(codeHash(row.id, code), row.code_hash)) {
        if (row) {
          await codes.countFailure(row.id);
          const user = await deps.users.findByEmail(row.email);
          if (user) await deps.securityLog.record(user.id, 'sign_in_failed', client, { method: 'email_code' });
        }
        throw wrong;
      }
      // Of two requests racing with the right code, one spends it.
      if (!(await codes.spend(row.id, now()))) throw wrong;
      await attempts.giveBack(attempt);
      return signIn(row, 'email_code', client);
    },

    /** The mailed link's token: 256 random bits, single use; it signs in like the code. */
    async verifyLink(token: string, client: ClientInfo): Promise<TokenResponse> {
      const invalid = new AppError('invalid_token', 'This sign-in link is not valid any more: it was used, has expired, or a newer one was sent. Ask for a new one.');
      if (!token.startsWith(LINK_PREFIX) || token.length > 100) throw invalid;
      const nowIso = now();
      const row = await codes.byTokenHash(sha256Hex(token), nowIso);
      if (!row || !(await codes.spend(row.id, nowIso))) throw invalid;
      return signIn(row, 'email_link', client);
    },
  };
}
export type PasswordlessService = ReturnType<typeof createPasswordlessService>;
