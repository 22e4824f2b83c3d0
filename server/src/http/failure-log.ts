import type { FastifyRequest } from 'fastify';
import type { AppError } from '../kernel/errors.js';

/** At most one line per kind of 503 in this long; the next line says how many were left out. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

/**
 * How failed requests are logged. A 500 is a bug: every one at error level with its stack.
 * A 503 is a condition (the database is down, logins are being shed, a readiness probe fails)
 * that every request meets while it lasts: a probe once a second, or a few hundred requests a
 * second, must not flood the log with the same stack, so each kind (its detail) is logged at
 * most once per 10 s, with the count of those left out since. The database being unreachable is
 * logged at error level, the 503s we raise on purpose (shedding, readiness) at warn.
 */
export function createFailureLog(now: () => number = Date.now) {
  const lastByKind = new Map<string, { at: number; suppressed: number }>();
  return function logFailure(request: FastifyRequest, original: unknown, appError: AppError): void {
    if (appError.status < 500) return;
    if (appError.status !== 503) {
      request.log.error({ err: original }, 'request failed');
      return;
    }
    const kind = appError.message;
    const last = lastByKind.get(kind);
    const at = now();
    if (last && at - last.at < UNAVAILABLE_LOG_INTERVAL_MS) {
      last.suppressed++;
      return;
    }
    lastByKind.set(kind, { at, suppressed: 0 });
    const fields = { err: original === appError ? undefined : original, detail: kind, suppressed: last?.suppressed ?? 0 };
    if (original === appError) request.log.warn(fields, 'service unavailable');
    else request.log.error(fields, 'service unavailable');
  };
}
