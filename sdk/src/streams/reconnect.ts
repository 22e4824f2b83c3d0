/**
 * When a live stream reconnects, how long it waits first, and when it gives up. Waits grow so a
 * server that is down is not hammered, and are jittered so thousands of clients dropped at once
 * (a deploy) do not come back in the same millisecond.
 */
import { isGatehouseError } from '../errors.js';

/** The first wait, until the server's `retry:` says otherwise. */
export const INITIAL_RECONNECT_MS = 500;
export const MAX_RECONNECT_MS = 30_000;
/** A Retry-After longer than this (the daily budget: hours) is cut to it: the stream checks back. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface Backoff {
  /** The server's `retry:` value: the new starting wait. */
  setInitial(ms: number): void;
  /** A connection delivered an event: the next failure starts again from the starting wait. */
  reset(): void;
  /** The wait before the next attempt: random below a ceiling that doubles per failure ("full jitter"). */
  next(): number;
}

export function createBackoff(random: () => number = Math.random): Backoff {
  let initial = INITIAL_RECONNECT_MS;
  let failures = 0;
  return {
    // At least 1 ms, so the doubling still grows should a server send `retry: 0`.
    setInitial: (ms) => void (initial = Math.max(1, ms)),
    reset: () => void (failures = 0),
    next() {
      const ceiling = Math.min(MAX_RECONNECT_MS, initial * 2 ** failures);
      if (ceiling < MAX_RECONNECT_MS) failures++;
      return Math.floor(random() * ceiling);
    },
  };
}

/**
 * How long to wait before reconnecting after `error`, or `error` rethrown when reconnecting
 * cannot help:
 * - network errors, timeouts and 5xx: back off;
 * - 429 and 503: wait for Retry-After (at most MAX_RETRY_AFTER_MS), else back off;
 * - any other 4xx (400, 401 after the one refresh, 403, 404…), a 2xx that is not an event
 *   stream, and anything that is not a GatehouseError: thrown.
 */
export function waitAfterFailure(error: unknown, backoff: Backoff): number {
  if (!isGatehouseError(error)) throw error;
  const { status, code } = error;
  if (status === 429 || status === 503) {
    return error.retryAfterSeconds === null ? backoff.next() : Math.min(error.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
  }
  if (status >= 500 || (status === 0 && (code === 'network_error' || code === 'timeout'))) return backoff.next();
  throw error;
}
