import type { ClientInfo } from '../../kernel/client-info.js';
import { AppError, tooManyAttempts } from '../../kernel/errors.js';
import type { AttemptBucket, AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import { hasPassword, normalizeEmail, type UsersRepository } from '../users/users.repository.js';
import type { MfaService } from '../mfa/mfa.service.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { assertMaySignIn } from './sign-in-rules.js';
import type { RestoreOnSignIn } from '../users/restore-on-sign-in.js';

/** Failed-login windows: per email as configured, per IP ten times that (one NAT, many people). */
const FAILURE_WINDOW_S = 15 * 60;
const IP_FAILURE_FACTOR = 10;

export interface LoginDeps {
  users: UsersRepository;
  sessions: SessionsService;
  hasher: PasswordHasher;
  attempts: AttemptLimiter;
  maxFailures: number;
  securityLog: SecurityLog;
  requireEmailVerification: boolean;
  mfa: Pick<MfaService, 'isEnabled' | 'challenge'>;
  /** An account scheduled for deletion is restored by signing in (flows/account-deletion.ts). */
  restoreAccount: RestoreOnSignIn;
}


export function createLoginService(deps: LoginDeps) {
  const { users, hasher, attempts, maxFailures } = deps;
  const buckets = (email: string, ip: string): AttemptBucket[] => [
    { key: `login-fail:email:${normalizeEmail(email)}`, limit: maxFailures, windowSeconds: FAILURE_WINDOW_S },
    { key: `login-fail:ip:${ip}`, limit: maxFailures * IP_FAILURE_FACTOR, windowSeconds: FAILURE_WINDOW_S },
  ];

  return {
    /**
     * Unknown email and wrong password give the same answer after the same work (one argon2
     * verify either way), so neither the status, the body nor the time tells them apart.
     * The attempt is taken from the per-email and per-IP buckets before the hash is checked and
     * given back only when the password matched: of any number of concurrent guesses, at most
     * the bucket's size are ever checked.
     */
    async login(username: string, password: string, client: ClientInfo): Promise<TokenResponse> {
      const attempt = buckets(username, client.ip);
      // The attempt and the account lookup are independent round trips: run them together.
      const [taken, user] = await Promise.all([attempts.take(attempt), users.findByEmail(username)]);
      if (!taken.allowed) throw tooManyAttempts('Too many failed sign-in attempts; try again later.', taken.retryAfterSeconds);
      // An account without a password (made through a provider) costs the same hash as an unknown one.
      const ok = user && hasPassword(user) ? await hasher.verify(user.password_hash, password) : (await hasher.verifyDummy(password), false);
      if (!user || !ok) {
        if (user) await deps.securityLog.record(user.id, 'sign_in_failed', client);
        throw new AppError('invalid_credentials', 'The email or password is not correct.');
      }
      // The password matched: the attempt was not a guess. Given back before the checks below,
      // which refuse the account, not the password.
      await attempts.giveBack(attempt);
      // Only after the password matched: these answers must not help anyone probe for accounts.
      assertMaySignIn(user, deps.requireEmailVerification);
      // A second factor is due: no session yet, only a short-lived token for POST /v1/auth/mfa/verify.
      if (await deps.mfa.isEnabled(user.id)) throw await deps.mfa.challenge(user.id);
      // A sign-in during a deletion's grace period cancels it; past it, the account is gone.
      await deps.restoreAccount(user, client);
      // The `sign_in` event only after the session exists, so the account's history never shows a
      // sign-in that failed. The security log never fails a login (it reports and goes on).
      const tokens = await deps.sessions.start(user.id, client);
      await deps.securityLog.record(user.id, 'sign_in', client);
      return tokens;
    },
  };
}
export type LoginService = ReturnType<typeof createLoginService>;
