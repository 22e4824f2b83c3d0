import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../kernel/errors.js';
import { parseBearer } from './caller.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether an Authorization header is `Bearer <METRICS_TOKEN>`, read by the one parser of that
 * header (parseBearer: the scheme in any case, as on every other route); a header it refuses
 * carries no token. Compared as SHA-256 digests in constant time: neither the length nor a prefix
 * of the token shows in how long a refusal takes.
 */
export function carriesMetricsToken(authorization: string | undefined, token: string): boolean {
  return timingSafeEqual(digest(presentedCredential(authorization)), digest(token));
}

/** The header's credential; '' when parseBearer refuses it (its 401 is the caller's to answer). */
function presentedCredential(authorization: string | undefined): string {
  try {
    return parseBearer(authorization);
  } catch (error) {
    if (error instanceof AppError) return '';
    throw error;
  }
}
