import { randomInt } from 'node:crypto';
import { sha256Hex } from '../../kernel/opaque-tokens.js';

/**
 * Recovery codes: ten one-time codes shown once when a second factor is turned on (or the set is
 * renewed). Each is 10 characters from an alphabet without look-alikes (50 bits), shown as
 * `xxxxx-xxxxx`; stored as SHA-256 hashes: with that much entropy and the per-account attempt
 * limit, a slow hash would add nothing.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no i, l, o, 0, 1
const LENGTH = 10;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** Case, spaces and dashes as people type them do not matter. */
export function recoveryCodeHash(code: string): string {
  return sha256Hex(code.toLowerCase().replace(/[\s-]/g, ''));
}
