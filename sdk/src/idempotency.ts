import type { RandomBytes } from './pkce.js';

/**
 * Idempotency-Key values for creating calls. One key per call, reused by its retries, so a retry
 * after a lost answer replays the first result instead of creating a duplicate.
 *
 * `crypto.randomUUID` where the runtime has it (browsers in secure contexts, Node 19+, Deno, Bun);
 * else a version 4 UUID from random bytes: `crypto.getRandomValues`, or the client's own source
 * (`randomBytes`: on React Native's Hermes, expo-crypto's, which @gatehouse/react-native passes).
 * Without any, no key is sent and the POST is simply not retried.
 */
export function newIdempotencyKey(randomBytes?: RandomBytes): string | undefined {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string; getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const source = randomBytes ?? (typeof crypto?.getRandomValues === 'function' ? (n: number) => crypto.getRandomValues!(new Uint8Array(n)) : undefined);
  return source ? uuidV4(source(16)) : undefined;
}

/** RFC 9562 version 4: 122 random bits, the version and variant bits set. */
export function uuidV4(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  if (b.length !== 16) throw new TypeError('a UUID needs 16 random bytes');
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
