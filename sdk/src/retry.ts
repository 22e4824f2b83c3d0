/**
 * When a failed attempt may be sent again. Only 408 (the server did not receive the request whole
 * and closed the connection: RFC 9110 §15.5.9 lets a client repeat it), 429 (nothing was done: the
 * limiter refused it first), 503 (the service asked us to come back) and a connection closed
 * before any answer (isClosedConnection) are retried, and only for requests that are safe to
 * repeat: idempotent methods, or a POST carrying an Idempotency-Key the server honours.
 */

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRYABLE_STATUSES = new Set([408, 429, 503]);

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** A Retry-After longer than this is not waited for: the error is thrown at once. */
  maxRetryWaitMs: number;
}

export function isRetrySafe(method: string, hasIdempotencyKey: boolean): boolean {
  return IDEMPOTENT_METHODS.has(method) || hasIdempotencyKey;
}

/**
 * Whether a request failed because the connection closed under it before any answer: a pooled
 * keep-alive connection the server had just closed as idle (its FIN crossing the request), or a
 * reset. Browsers send such a request again on a new connection; so does the client, once, and
 * only when it is safe to repeat. Node's fetch (undici) says `UND_ERR_SOCKET` ("other side
 * closed") or a reset code in the error's causes; anything else (nothing listening, DNS, TLS) is
 * not this.
 */
export function isClosedConnection(error: unknown): boolean {
  const codes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
  }
  return false;
}

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Retry-After as seconds (RFC 9110: delay-seconds or an HTTP-date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * How long to wait before retry number `attempt` (0-based): what Retry-After asked for, else an
 * exponential backoff (0.5 s, 1 s, 2 s…) with jitter so many clients do not return in lockstep.
 */
export function retryDelayMs(retryAfterSeconds: number | null, attempt: number): number {
  if (retryAfterSeconds !== null) return retryAfterSeconds * 1000;
  return 500 * 2 ** attempt + Math.floor(Math.random() * 250);
}
