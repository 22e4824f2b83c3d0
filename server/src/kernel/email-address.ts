/**
 * The one rule for an email address, wherever it comes from (a registration's body through the
 * validator's `email` format, a change of email, a sign-in provider's claim): plain ASCII in the
 * shape of ajv-formats' full `email` format, at most 254 characters (users.email's column).
 * Non-ASCII is refused, not folded: `toLowerCase()` maps some letters onto ASCII (KELVIN SIGN
 * U+212A → "k"), and a look-alike must never become another person's address.
 */
const EMAIL_MAX = 254;
// No `u` flag: case-insensitive matching then never folds a non-ASCII letter onto an ASCII one.
const EMAIL_SHAPE = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX && EMAIL_SHAPE.test(text);
}

/**
 * The form addresses are compared and stored unique in (users.email_normalized): trimmed, with
 * ASCII capitals lowered and nothing else touched, so no other character can fold onto ASCII.
 */
export function normalizeEmail(email: string): string {
  return email.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * The reserved address an account holds once it gave an address it held on nobody's proof up
 * (identity/users/unproven-address.ts, migration 0017): RFC 2606 `.invalid` routes nowhere, so
 * nothing is ever mailed there, and the account id keeps it unique.
 */
export const releasedAddress = (userId: string): string => `${userId}@unclaimed.invalid`;

/** Whether `email` is such a reserved address (nothing may be mailed to it). */
export const isReleasedAddress = (email: string): boolean => email.endsWith('@unclaimed.invalid');

/**
 * The address a guest account holds (identity/guests, ANONYMOUS_SIGN_IN): it has none of its own
 * until an upgrade, but `users.email` is unique and required. `.invalid` routes nowhere.
 */
export const guestAddress = (userId: string): string => `${userId}@guest.invalid`;

/** Whether `email` is a guest's placeholder (nothing may be mailed to it). */
export const isGuestAddress = (email: string): boolean => email.endsWith('@guest.invalid');
