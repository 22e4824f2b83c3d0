import QRCode from 'qrcode';
import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError, fieldError, tooManyAttempts } from '../../kernel/errors.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { AttemptBucket, AttemptLimiter } from '../../kernel/limits/limiter.js';
import { secretSealer } from '../../kernel/sealed-secrets.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import type { EventType } from '../../kernel/events/event-types.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import type { UserRow, UsersRepository } from '../users/users.repository.js';
import { removeSecondFactor } from './factor-removal.js';
import type { MfaRepository } from './mfa.repository.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { fromBase32, matchingStep, newTotpSecret, otpauthUrl } from './totp.js';
import type { RestoreOnSignIn } from '../users/restore-on-sign-in.js';

/** A login that still needs its second factor: the token for POST /v1/auth/mfa/verify lives this long. */
export const MFA_CHALLENGE_TTL_S = 300;
const MFA_TOKEN_PREFIX = 'gthm_';
/** Wrong codes per account in this window, the same budget as failed logins (and ten times that per IP). */
const FAILURE_WINDOW_S = 15 * 60;
const IP_FAILURE_FACTOR = 10;
/**
 * Which bucket a code check counts in: the second half of a sign-in, or settings (step-up,
 * turning TOTP off, confirming an enrolment). Apart, so whoever holds a stolen access token and
 * guesses codes in settings never locks the owner out of signing in.
 */
const SIGN_IN_CODES = 'mfa-fail';
const SETTINGS_CODES = 'mfa-settings-fail';
type CodeCheck = typeof SIGN_IN_CODES | typeof SETTINGS_CODES;
/** The methods a second factor can be proved with, as the `methods` of an mfa_required answer. */
export const MFA_METHODS = ['totp', 'recovery_code'] as const;

const totpSecrets = secretSealer({ kind: 'TOTP secret', purpose: 'totp-secrets v1', plainMarker: 'plain:' });

/** What proves a second factor: a code from the authenticator app, or one unused recovery code. */
export type FactorProof = { code: string; recovery_code?: undefined } | { recovery_code: string; code?: undefined };

export interface MfaServiceDeps {
  repo: MfaRepository;
  users: Pick<UsersRepository, 'findById'>;
  sessions: SessionsService;
  attempts: AttemptLimiter;
  securityLog: SecurityLog;
  clock: Clock;
  /** GATEHOUSE_SECRET: seals TOTP secrets at rest. */
  secret: string | undefined;
  /** The current password, confirming a change (users service: throttled, a field error when wrong). */
  confirmPassword: (userId: string, password: string, field: string) => Promise<void>;
  /** The password, or on an account without one a recent sign-in (users service). */
  confirmOwner: (userId: string, sessionId: string, password: string | undefined, field: string) => Promise<void>;
  maxFailures: number;
  stepUpSeconds: number;
  totpIssuer: string;
  onEvent?: OnEventsCommitted;
  /** Mails the owner about a change to how the account signs in (account-email.service.ts). */
  notify?: (user: { email: string; name: string }, change: string) => void;
  /** An account scheduled for deletion is restored by signing in (flows/account-deletion.ts). */
  restoreAccount: RestoreOnSignIn;
  /** Adds the way in a challenge held back until the factor was proved (identities.service.ts `linkPending`). */
  linkPending?: (user: UserRow, pending: string, client: ClientInfo) => Promise<void>;
}

export function createMfaService(deps: MfaServiceDeps) {
  const { repo, clock, sessions } = deps;
  const now = () => isoTime(clock.now());

  /**
   * Runs `change` and writes the account event in one transaction (both or neither), then wakes
   * the delivery worker if the event has receivers. Returns what `change` returned.
   */
  async function publish<T>(userId: string, type: EventType, data: Record<string, unknown>, change: (trx: MfaRepository['db']) => Promise<T>): Promise<T> {
    const { result, recorded } = await repo.db.transaction().execute(async (trx) => {
      const result = await change(trx);
      return { result, recorded: await recordEvent(trx, clock, { userId, type, data: { user_id: userId, ...data } }) };
    });
    deps.onEvent?.(recorded);
    return result;
  }

  async function enabledTotp(userId: string) {
    const row = await repo.findTotp(userId);
    return row && row.confirmed_at !== null ? row : undefined;
  }

  /**
   * Checks a proof against the account's factors, spending what it uses (a code's time step, a
   * recovery code). Wrong proofs count against the account like wrong passwords: the attempt is
   * taken before the check and given back when it passed. Returns the method that passed, or null.
   */
  async function prove(user: Pick<UserRow, 'id'>, proof: FactorProof, client: ClientInfo, where: CodeCheck): Promise<'otp' | 'recovery_code' | null> {
    const attempt = await takeCodeAttempt(user.id, client, where);
    let method: 'otp' | 'recovery_code' | null = null;
    if (proof.code !== undefined) {
      const totp = await enabledTotp(user.id);
      const step = totp ? matchingStep(fromBase32(totpSecrets.open(totp.secret, deps.secret)), proof.code.trim(), clock.now()) : null;
      if (step !== null && (await repo.acceptStep(repo.db, user.id, step))) method = 'otp';
    } else if (await repo.useRecoveryCode(user.id, recoveryCodeHash(proof.recovery_code), now())) {
      method = 'recovery_code';
      const remaining = await repo.unusedRecoveryCodes(user.id);
      await deps.securityLog.record(user.id, 'recovery_code_used', client, { remaining });
      await publish(user.id, 'user.mfa.recovery_code_used', { remaining }, async () => undefined);
    }
    if (method === null) {
      await deps.securityLog.record(user.id, 'mfa_failed', client, { method: proof.code !== undefined ? 'totp' : 'recovery_code' });
      return null;
    }
    await deps.attempts.giveBack(attempt);
    return method;
  }

  /**
   * Takes one attempt at a code check from the account's and the address's buckets of `where`
   * (before the check: concurrent guesses cannot exceed the limit); 429 when they are spent.
   */
  async function takeCodeAttempt(userId: string, client: ClientInfo, where: CodeCheck): Promise<AttemptBucket[]> {
    const attempt = [
      { key: `${where}:user:${userId}`, limit: deps.maxFailures, windowSeconds: FAILURE_WINDOW_S },
      // One address guessing for many accounts whose passwords it holds (stuffing) is bounded too.
      { key: `${where}:ip:${client.ip}`, limit: deps.maxFailures * IP_FAILURE_FACTOR, windowSeconds: FAILURE_WINDOW_S },
    ];
    const taken = await deps.attempts.take(attempt);
    if (!taken.allowed) throw tooManyAttempts('Too many wrong codes; try again later.', taken.retryAfterSeconds);
    return attempt;
  }

  /** In settings a wrong code is a field error of the form, like a wrong current password. */
  async function proveInSettings(user: Pick<UserRow, 'id'>, proof: FactorProof, client: ClientInfo): Promise<void> {
    if ((await prove(user, proof, client, SETTINGS_CODES)) === null) {
      if (proof.code !== undefined) throw fieldError('/code', 'incorrect_code', 'The code is not correct, or it was used already: wait for the next one.');
      throw fieldError('/recovery_code', 'incorrect_code', 'The recovery code is not correct, or it was used already.');
    }
  }

  async function issueRecoveryCodes(trx: MfaRepository['db'], userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await repo.replaceRecoveryCodes(trx, userId, codes.map(recoveryCodeHash), now());
    return codes;
  }

  const stepUpUntil = (provedAt: string | null) => (provedAt === null ? null : isoTime(Date.parse(provedAt) + deps.stepUpSeconds * 1000));

  /**
   * For sensitive changes (a new API key, a new password, turning a factor off, new recovery
   * codes): on an account with a second factor, this session must have proved one within
   * MFA_STEP_UP_SECONDS; otherwise 403 mfa_required, and the client steps up and retries.
   */
  async function requireRecentFactor(userId: string, sessionId: string): Promise<void> {
    if (!(await enabledTotp(userId))) return;
    const until = stepUpUntil(await sessions.factorProvedAt(userId, sessionId));
    if (until !== null && until > now()) return;
    throw new AppError('mfa_required', 'Confirm it is you: prove your second factor (POST /v1/users/me/mfa/step-up), then retry.', {
      methods: [...MFA_METHODS], step_up_seconds: deps.stepUpSeconds,
    });
  }

  return {
    async isEnabled(userId: string): Promise<boolean> {
      return (await enabledTotp(userId)) !== undefined;
    },

    /** The account's factors as settings show them, and until when this session may make sensitive changes. */
    async status(userId: string, sessionId: string) {
      const totp = await repo.findTotp(userId);
      const enabled = totp !== undefined && totp.confirmed_at !== null;
      const until = enabled ? stepUpUntil(await sessions.factorProvedAt(userId, sessionId)) : null;
      return {
        totp: { status: !totp ? ('disabled' as const) : enabled ? ('enabled' as const) : ('pending' as const), enabled_at: totp?.confirmed_at ?? null },
        recovery_codes_remaining: enabled ? await repo.unusedRecoveryCodes(userId) : 0,
        step_up_expires_at: until !== null && until > now() ? until : null,
      };
    },

    /**
     * Starts TOTP enrolment: a new secret to scan; it counts only once a first code confirms it.
     * Needs the password (or, without one, a recent sign-in): a stolen access token must not be
     * able to put the thief's authenticator on the account (and lock the owner out at the next login).
     */
    async enrolTotp(user: UserRow, sessionId: string, password: string | undefined) {
      if (await enabledTotp(user.id)) throw new AppError('conflict', 'TOTP is already on for this account; turn it off first to enrol a new authenticator.');
      await deps.confirmOwner(user.id, sessionId, password, '/password');
      const secret = newTotpSecret();
      if (!(await repo.putPendingTotp(user.id, totpSecrets.seal(secret, deps.secret), now()))) {
        throw new AppError('conflict', 'TOTP is already on for this account; turn it off first to enrol a new authenticator.');
      }
      const url = otpauthUrl({ issuer: deps.totpIssuer, account: user.email, secret });
      return { secret, otpauth_url: url, qr_svg: await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) };
    },

    /** The first code turns TOTP on and returns the recovery codes, shown this once. */
    async confirmTotp(user: UserRow, sessionId: string, code: string, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
      const pending = await repo.findTotp(user.id);
      if (!pending || pending.confirmed_at !== null) throw new AppError('conflict', pending ? 'TOTP is already on for this account.' : 'Start enrolment first: POST /v1/users/me/mfa/totp.');
      const wrong = () => fieldError('/code', 'incorrect_code', 'The code is not correct: check the time on the device and enter the current code.');
      // Guessing a pending enrolment's code would hand out its recovery codes: counted like any code check.
      const attempt = await takeCodeAttempt(user.id, client, SETTINGS_CODES);
      const step = matchingStep(fromBase32(totpSecrets.open(pending.secret, deps.secret)), code.trim(), clock.now());
      if (step === null) throw wrong();
      // The factor goes on together with its recovery codes and the event, or not at all.
      const codes = await publish(user.id, 'user.mfa.enabled', { method: 'totp' }, async (trx) => {
        if (!(await repo.acceptStep(trx, user.id, step, { confirm: { at: now(), secret: pending.secret } }))) throw wrong();
        return issueRecoveryCodes(trx, user.id);
      });
      await deps.attempts.giveBack(attempt);
      await sessions.factorProved(user.id, sessionId);
      await deps.securityLog.record(user.id, 'mfa_enabled', client, { method: 'totp' });
      deps.notify?.(user, 'Two-step verification (an authenticator app) was turned on');
      return { recovery_codes: codes };
    },

    /**
     * Turns TOTP off (or drops an enrolment still waiting for its first code). A code or a recovery
     * code proves the factor by itself; the password instead needs a factor proved in this session
     * within the step-up window.
     */
    async disableTotp(user: UserRow, sessionId: string, client: ClientInfo, confirmation: { proof: FactorProof } | { password: string }): Promise<void> {
      const totp = await repo.findTotp(user.id);
      if (!totp) throw new AppError('not_found', 'TOTP is not on for this account.');
      if (totp.confirmed_at !== null) {
        if ('proof' in confirmation) {
          await proveInSettings(user, confirmation.proof, client);
        } else {
          await requireRecentFactor(user.id, sessionId);
          await deps.confirmPassword(user.id, confirmation.password, '/password');
        }
      }
      const { removed, recorded } = await removeSecondFactor({ db: repo.db, clock, securityLog: deps.securityLog }, user.id, { client });
      if (recorded) deps.onEvent?.(recorded);
      if (removed === 'enabled') deps.notify?.(user, 'Two-step verification was turned off');
    },

    async regenerateRecoveryCodes(user: UserRow, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
      if (!(await enabledTotp(user.id))) throw new AppError('conflict', 'Recovery codes exist only while a second factor is on.');
      const codes = await publish(user.id, 'user.mfa.recovery_codes_regenerated', {}, (trx) => issueRecoveryCodes(trx, user.id));
      await deps.securityLog.record(user.id, 'recovery_codes_regenerated', client);
      deps.notify?.(user, 'New recovery codes were made (the old ones no longer work)');
      return { recovery_codes: codes };
    },

    /** Proves a factor in this session, opening the step-up window; returns when it closes. */
    async stepUp(user: UserRow, sessionId: string, proof: FactorProof, client: ClientInfo): Promise<{ step_up_expires_at: string }> {
      if (!(await enabledTotp(user.id))) throw new AppError('conflict', 'This account has no second factor to prove.');
      await proveInSettings(user, proof, client);
      await sessions.factorProved(user.id, sessionId);
      await deps.securityLog.record(user.id, 'step_up', client, { session_id: sessionId });
      return { step_up_expires_at: stepUpUntil(now())! };
    },

    requireRecentFactor,

    /**
     * After a correct first step (the password, or a provider's sign-in: `amr`) on an account with
     * a factor: the 403 that asks for it, with a one-time token. `pendingLink`: a provider
     * identity to link when the factor is proved (kept on the challenge's row, never before).
     */
    async challenge(userId: string, amr: readonly string[] = ['pwd'], options: { pendingLink?: string } = {}): Promise<AppError> {
      const token = newOpaqueToken(MFA_TOKEN_PREFIX);
      const createdMs = clock.now();
      await repo.insertChallenge({
        token_hash: sha256Hex(token), user_id: userId, amr: amr.join(' '), created_at: isoTime(createdMs), expires_at: isoTime(createdMs + MFA_CHALLENGE_TTL_S * 1000),
        pending_link: options.pendingLink ?? null,
      });
      const first = amr.includes('pwd') ? 'The password was right' : 'The sign-in was right';
      return new AppError('mfa_required', `${first}; now enter a code from the authenticator app, or a recovery code.`, {
        mfa_token: token, methods: [...MFA_METHODS], expires_in: MFA_CHALLENGE_TTL_S,
      });
    },

    /** The second half of a login: a live challenge and a correct proof start the session. */
    async completeLogin(mfaToken: string, proof: FactorProof, client: ClientInfo): Promise<TokenResponse> {
      const invalid = new AppError('invalid_token', 'The mfa_token is not valid or has expired: log in again.');
      if (!mfaToken.startsWith(MFA_TOKEN_PREFIX) || mfaToken.length > 100) throw invalid;
      const hash = sha256Hex(mfaToken);
      const challenge = await repo.findLiveChallenge(hash, now());
      if (!challenge) throw invalid;
      const user = await deps.users.findById(challenge.user_id);
      if (!user) throw invalid;
      if (user.disabled) throw new AppError('account_disabled', 'This account has been disabled; contact support.');
      // Claimed before the proof, so a code is never spent on a challenge another request already
      // used; given back when the proof fails (a mistyped code may be tried again while it lives).
      if (!(await repo.claimChallenge(hash, now()))) throw invalid;
      let method: Awaited<ReturnType<typeof prove>>;
      try {
        method = await prove(user, proof, client, SIGN_IN_CODES);
      } catch (error) {
        await repo.releaseChallenge(hash);
        throw error;
      }
      if (method === null) {
        await repo.releaseChallenge(hash);
        throw new AppError('invalid_credentials', 'The code is not correct, or it was used already.');
      }
      // A way in the first step would have added (a provider linked by email) is added only now.
      if (challenge.pending_link !== null) await deps.linkPending?.(user, challenge.pending_link, client);
      await deps.restoreAccount(user, client);
      // A recovery code is a one-time password too (RFC 8176 `otp`).
      const tokens = await sessions.start(user.id, client, { amr: [...challenge.amr.split(' '), 'otp'], factorProved: true });
      await deps.securityLog.record(user.id, 'sign_in', client, { mfa: method });
      return tokens;
    },
  };
}
export type MfaService = ReturnType<typeof createMfaService>;
