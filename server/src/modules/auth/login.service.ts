import type { ClientInfo } from '../../http/client-info.js';
import { AppError, tooManyAttempts } from '../../http/error-catalogue.js';
import type { AttemptLimiter } from '../../infra/limits/attempt-limiter.js';
import type { SecurityLog } from '../security-log/security-log.js';
import type { SessionsService, TokenResponse } from '../sessions/sessions.service.js';
import { normalizeEmail, type UsersRepository } from '../users/users.repository.js';
import type { PasswordHasher } from './password-hasher.js';

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
}


export function createLoginService(deps: LoginDeps) {
  const { users, hasher, attempts, maxFailures } = deps;
  const emailKey = (email: string) => `login-fail:email:${normalizeEmail(email)}`;
  const ipKey = (ip: string) => `login-fail:ip:${ip}`;
  const ipMax = maxFailures * IP_FAILURE_FACTOR;

  async function assertNotThrottled(email: string, ip: string): Promise<void> {
    const [byEmail, byIp] = await Promise.all([
      attempts.peek(emailKey(email), maxFailures, FAILURE_WINDOW_S),
      attempts.peek(ipKey(ip), ipMax, FAILURE_WINDOW_S),
    ]);
    const blocked = [byEmail, byIp].find((d) => !d.allowed);
    if (blocked) {
      throw tooManyAttempts('Too many failed sign-in attempts; try again later.', blocked.retryAfterSeconds);
    }
  }

  return {
    /**
     * Unknown email and wrong password give the same answer after the same work (one argon2
     * verify either way), so neither the status, the body nor the time tells them apart.
     */
    async login(username: string, password: string, client: ClientInfo): Promise<TokenResponse> {
      // The throttle check and the account lookup are independent round trips: run them together.
      const [, user] = await Promise.all([assertNotThrottled(username, client.ip), users.findByEmail(username)]);
      const ok = user ? await hasher.verify(user.password_hash, password) : (await hasher.verifyDummy(password), false);
      if (!user || !ok) {
        await Promise.all([attempts.hit(emailKey(username), maxFailures, FAILURE_WINDOW_S), attempts.hit(ipKey(client.ip), ipMax, FAILURE_WINDOW_S)]);
        if (user) await deps.securityLog.record(user.id, 'sign_in_failed', client);
        throw new AppError('invalid_credentials', 'The email or password is not correct.');
      }
      // Only after the password matched: these answers must not help anyone probe for accounts.
      if (user.disabled) throw new AppError('account_disabled', 'This account has been disabled; contact support.');
      if (deps.requireEmailVerification && !user.email_verified) {
        throw new AppError('email_not_verified', 'Confirm your email address first: follow the link we sent, or ask for a new one.');
      }
      // The failure counter's reset runs beside the session's start (with a network database each
      // would otherwise add a round trip); the `sign_in` event only after the session exists, so
      // the account's history never shows a sign-in that failed. The security log never fails a
      // login (it reports and goes on).
      const [tokens] = await Promise.all([
        deps.sessions.start(user.id, client).then(async (started) => {
          await deps.securityLog.record(user.id, 'sign_in', client);
          return started;
        }),
        attempts.reset(emailKey(username)),
      ]);
      return tokens;
    },
  };
}
export type LoginService = ReturnType<typeof createLoginService>;
