import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether an Authorization header is `Bearer <METRICS_TOKEN>`. Compared as SHA-256 digests in
 * constant time: neither the length nor a prefix of the token shows in how long a refusal takes.
 */
export function carriesMetricsToken(authorization: string | undefined, token: string): boolean {
  const presented = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
  return timingSafeEqual(digest(presented), digest(token));
}
