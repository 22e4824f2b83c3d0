import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { AuthContext } from '../../http/route-config.js';
import { AppError } from '../../kernel/errors.js';
import { awaited, type Flow } from '../../kernel/eager.js';

/** Per account as configured; per IP ten times that (one office behind one address). */
const IP_FACTOR = 10;

export interface AccountRouteLimit {
  limiter: AttemptLimiter;
  perMinute: number;
}

/**
 * The abuse limit of the routes that spend no budget (`config.budget: 'exempt'`): without it the
 * exemption would be a way to call the service without limit. It counts per account and per
 * client address, atomically, and refuses with 429 `rate_limited` and Retry-After.
 * An account's API keys and its sessions count apart: a leaked key hammering GET /v1/usage must
 * not use up the allowance its owner needs to revoke that key.
 * Answers the refusal, or undefined when the request may go on (a flow for runEager: at once in
 * memory); throws when the store cannot decide (a failed take is never a pass).
 */
export function* accountRouteRefusal(limit: AccountRouteLimit, auth: Pick<AuthContext, 'userId' | 'credential'>, ip: string): Flow<AppError | undefined> {
  const decision = yield* awaited(limit.limiter.take([
    { key: `account-routes:user:${auth.userId}:${auth.credential}`, limit: limit.perMinute, windowSeconds: 60 },
    { key: `account-routes:ip:${ip}`, limit: limit.perMinute * IP_FACTOR, windowSeconds: 60 },
  ]));
  if (decision.allowed) return undefined;
  return new AppError('rate_limited', 'Too many account requests in a short time; slow down.', {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    window: 'minute',
    retry_after: decision.retryAfterSeconds,
  });
}
