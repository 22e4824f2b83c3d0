import { promisedConsume, type ConsumeOptions, type DecisionCallback, type RateLimiter } from './rate-limiter.js';
import type { Limits } from '../access-terms/tiers.js';

/**
 * When Redis cannot answer (down, timing out), requests are limited by this instance's own
 * memory limiter instead: the service keeps serving and stays bounded per instance, and the
 * error is logged (at most every 10 s) so operators see it. We chose availability over a global
 * count here; a failed limiter must never turn into an outage of the whole platform.
 *
 * Callback-style inside (`consumeThen`), so the hot path in Redis mode creates no promise per
 * request.
 */
export function withFallback(primary: RateLimiter, fallback: RateLimiter, onFallback: (error: unknown) => void): RateLimiter & { degraded(): boolean } {
  let lastReport = 0;
  let degradedUntil = 0;

  function useFallback(error: unknown, accountId: string, limits: Limits, callback: DecisionCallback, options: ConsumeOptions | undefined): void {
    const now = Date.now();
    degradedUntil = now + 10_000;
    if (now - lastReport > 10_000) {
      lastReport = now;
      onFallback(error);
    }
    fallback.consumeThen(accountId, limits, callback, options);
  }

  function consumeThen(accountId: string, limits: Limits, callback: DecisionCallback, options?: ConsumeOptions): void {
    const answer: DecisionCallback = (error, decision) => {
      if (decision === undefined) return useFallback(error, accountId, limits, callback, options);
      degradedUntil = 0;
      callback(null, decision);
    };
    primary.consumeThen(accountId, limits, answer, options);
  }

  return {
    consumeThen,
    consume: promisedConsume(consumeThen),
    async peek(accountId, limits, key) {
      try {
        return await primary.peek(accountId, limits, key);
      } catch {
        return fallback.peek(accountId, limits, key); // counted and reported by consume; a read just answers
      }
    },
    degraded: () => degradedUntil > Date.now(),
    async close() {
      await primary.close();
      await fallback.close();
    },
  };
}
