import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * `gth_` + 34 random base62 chars + 6 base62 chars of CRC32 over everything before them:
 * 44 chars, ≈202 bits of entropy. The checksum lets us (and secret scanners) reject typos and
 * junk without touching the database; it is no defence against a forger, the hash lookup is.
 */
export const API_KEY_PREFIX = 'gth_';
const RANDOM_LENGTH = 34;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 62 * 4 = 248: rejecting bytes ≥ 248 keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/** Shape and checksum only; cheap, constant work, before any lookup. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !SHAPE.test(key)) return false;
  return checksum(key.slice(0, -CHECKSUM_LENGTH)) === key.slice(-CHECKSUM_LENGTH);
}
