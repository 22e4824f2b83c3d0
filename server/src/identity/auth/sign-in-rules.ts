import { AppError } from '../../kernel/errors.js';
import type { UserRow } from '../users/users.repository.js';

/**
 * What every way of signing in checks once the credential itself was right (a password, a
 * passkey, a provider): the account is not disabled and, with REQUIRE_EMAIL_VERIFICATION, its
 * address is confirmed. Only after the credential: these answers must not help anyone probe for
 * accounts.
 */
export function assertMaySignIn(user: Pick<UserRow, 'disabled' | 'email_verified'>, requireEmailVerification: boolean): void {
  if (user.disabled) throw new AppError('account_disabled', 'This account has been disabled; contact support.');
  if (requireEmailVerification && !user.email_verified) {
    throw new AppError('email_not_verified', 'Confirm your email address first: follow the link we sent, or ask for a new one.');
  }
}
