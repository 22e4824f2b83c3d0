/**
 * Idempotency-Key values for creating calls. One key per call, reused by its retries, so a retry
 * after a lost answer replays the first result instead of creating a duplicate.
 */
export function newIdempotencyKey(): string | undefined {
  // crypto.randomUUID exists in browsers (secure contexts), Node 19+, Deno, Bun and Expo with
  // expo-crypto's polyfill; without it no key is sent and the POST is simply not retried.
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return typeof crypto?.randomUUID === 'function' ? crypto.randomUUID() : undefined;
}
