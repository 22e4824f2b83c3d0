import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe, with a prefix so secret scanners and humans can tell what it is. */
export function newOpaqueToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Opaque secrets are stored only as this hash; a database dump reveals no usable token. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
