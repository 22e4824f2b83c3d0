import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError, type FieldError } from '../../kernel/errors.js';

/**
 * NIST SP 800-63B: length 8–64+ (we allow 128), no composition rules, and refuse passwords
 * known from breach corpora. The list is zxcvbn-ts' 49k most common passwords (MIT), bundled
 * as a dependency so no network is needed; compared case-insensitively.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

export function passwordProblems(password: string, field: string, context: { email?: string; name?: string } = {}): FieldError[] {
  const length = [...password].length; // code points, so an emoji counts once
  if (length < PASSWORD_MIN) return [{ field, code: 'too_short', message: `The password must be at least ${PASSWORD_MIN} characters.` }];
  if (length > PASSWORD_MAX) return [{ field, code: 'too_long', message: `The password must be at most ${PASSWORD_MAX} characters.` }];
  const lowered = password.toLowerCase();
  if (COMMON.has(lowered)) {
    return [{ field, code: 'password_too_common', message: 'This password is on a list of common or breached passwords; choose another.' }];
  }
  const local = context.email?.split('@')[0]?.toLowerCase();
  if ((local && local.length >= 3 && lowered === local) || (context.email && lowered === context.email.toLowerCase())) {
    return [{ field, code: 'password_matches_email', message: 'The password must not be your email address.' }];
  }
  return [];
}

export function assertPasswordAcceptable(password: string, field: string, context?: { email?: string }): void {
  const errors = passwordProblems(password, field, context);
  if (errors.length) throw new AppError('validation_failed', errors[0]!.message, { errors });
}
