import type { RateLimiter } from './rate-limiter.js';

/**
 * When Redis cannot answer (down, timing out), requests are limited by this instance's own
 * memory limiter instead: the service keeps serving and stays bounded per instance, and the
 * error is logged (at most every 10 s) so operators see it. We chose availability over a global
 * count here; a failed limiter must never turn into an outage of the whole platform.
 */
export function withFallback(primary: RateLimiter, fallback: RateLimiter, onFallback: (error: unknown) => void): RateLimiter & { degraded(): boolean } {
  let lastReport = 0;
  let degradedUntil = 0;
  return {
    async consume(accountId, limits) {
      try {
        const decision = await primary.consume(accountId, limits);
        degradedUntil = 0;
        return decision;
      } catch (error) {
        const now = Date.now();
        degradedUntil = now + 10_000;
        if (now - lastReport > 10_000) {
          lastReport = now;
          onFallback(error);
        }
        return fallback.consume(accountId, limits);
      }
    },
    degraded: () => degradedUntil > Date.now(),
    async close() {
      await primary.close();
      await fallback.close();
    },
  };
}
