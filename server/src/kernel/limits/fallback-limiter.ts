import type { Limiter } from './limiter.js';
import type { Eventually } from '../eager.js';

/**
 * When Redis cannot answer (down, timing out), this instance's own memory store decides instead:
 * the service keeps serving and stays bounded per instance, and the error is logged (at most
 * every 10 s) so operators see it. We chose availability over a global count here; a failed
 * limiter must never turn into an outage of the whole platform. Each call tries the primary
 * first, so the shared count resumes as soon as Redis answers again.
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
  /** The primary's answer, or (reported unless told not to) the fallback's when the primary failed, at once or later. */
  function either<T>(step: (limiter: Limiter) => Eventually<T>, reported = true): Eventually<T> {
    const onFailure = (error: unknown) => {
      if (reported) report(error);
      return step(fallback);
    };
    let answer: Eventually<T>;
    try {
      answer = step(primary);
    } catch (error) {
      return onFailure(error);
    }
    return answer instanceof Promise ? answer.catch(onFailure) : answer;
  }

  return {
    consume: (accountId, limits, options) => either((l) => l.consume(accountId, limits, options)),
    // A read just answers: failures are counted and reported by the steps that spend.
    peek: (accountId, limits, key) => either((l) => l.peek(accountId, limits, key), false) as Promise<Awaited<ReturnType<Limiter['peek']>>>,
    take: (buckets) => either((l) => l.take(buckets)),
    giveBack: (buckets) => either((l) => l.giveBack(buckets)) as Promise<void>,
    reset: (key) => either((l) => l.reset(key)) as Promise<void>,
    async close() {
      await primary.close();
      await fallback.close();
    },
  };
}
