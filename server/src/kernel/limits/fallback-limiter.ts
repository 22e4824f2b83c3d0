import { promisedConsume, promisedTake, type Limiter } from './limiter.js';

/**
 * When Redis cannot answer (down, timing out), this instance's own memory store decides instead:
 * the service keeps serving and stays bounded per instance, and the error is logged (at most
 * every 10 s) so operators see it. We chose availability over a global count here; a failed
 * limiter must never turn into an outage of the whole platform. Each call tries the primary
 * first, so the shared count resumes as soon as Redis answers again.
 *
 * Callback style inside (consumeThen, takeThen), so the hot path in Redis mode creates no promise
 * per request.
 */
export function withFallback(primary: Limiter, fallback: Limiter, onFallback: (error: unknown) => void): Limiter {
  let lastReport = 0;
  function report(error: unknown): void {
    const now = Date.now();
    if (now - lastReport > 10_000) {
      lastReport = now;
      onFallback(error);
    }
  }
  /** The primary's answer, or (reported) the fallback's when the primary failed. */
  async function either<T>(step: (limiter: Limiter) => Promise<T>, reported = true): Promise<T> {
    try {
      return await step(primary);
    } catch (error) {
      if (reported) report(error);
      return step(fallback);
    }
  }

  const consumeThen: Limiter['consumeThen'] = (accountId, limits, answer, options) =>
    primary.consumeThen(accountId, limits, (error, decision) => {
      if (decision !== undefined) return answer(null, decision);
      report(error);
      fallback.consumeThen(accountId, limits, answer, options);
    }, options);
  const takeThen: Limiter['takeThen'] = (buckets, answer) =>
    primary.takeThen(buckets, (error, decision) => {
      if (decision !== undefined) return answer(null, decision);
      report(error);
      fallback.takeThen(buckets, answer);
    });
  return {
    consumeThen,
    consume: promisedConsume(consumeThen),
    // A read just answers: failures are counted and reported by the steps that spend.
    peek: (accountId, limits, key) => either((l) => l.peek(accountId, limits, key), false),
    takeThen,
    take: promisedTake(takeThen),
    giveBack: (buckets) => either((l) => l.giveBack(buckets)),
    reset: (key) => either((l) => l.reset(key)),
    async close() {
      await primary.close();
      await fallback.close();
    },
  };
}
