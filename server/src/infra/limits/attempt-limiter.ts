/**
 * Counting limiter for abuse control on public endpoints (per IP) and failed logins (per email).
 * GCRA over a rolling window: `limit` requests per `windowSeconds`, bursts up to `limit`, no
 * reset-boundary double burst. In memory, bounded; a Redis implementation shares it across instances.
 */
export interface LimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface AttemptLimiter {
  /** Count one attempt against the key and say whether it is within the limit. */
  hit(key: string, limit: number, windowSeconds: number): Promise<LimitDecision>;
  /** Whether one more attempt would be allowed, without counting one. */
  peek(key: string, limit: number, windowSeconds: number): Promise<LimitDecision>;
  reset(key: string): Promise<void>;
}

export function createMemoryAttemptLimiter(opts: { now?: () => number; maxKeys?: number } = {}): AttemptLimiter {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  // Theoretical arrival time per key (GCRA): the moment the bucket would be empty again.
  const tat = new Map<string, number>();

  function decide(key: string, limit: number, windowSeconds: number, count: boolean): LimitDecision {
    const t = now();
    const interval = (windowSeconds * 1000) / limit;
    const current = Math.max(tat.get(key) ?? t, t);
    const next = current + interval;
    const allowAt = next - windowSeconds * 1000;
    if (allowAt > t) {
      return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((allowAt - t) / 1000)) };
    }
    if (count) {
      if (!tat.has(key) && tat.size >= maxKeys) tat.delete(tat.keys().next().value as string);
      tat.set(key, next);
    }
    const used = count ? next : current;
    const remaining = Math.max(0, Math.floor((windowSeconds * 1000 - (used - t)) / interval));
    return { allowed: true, remaining, retryAfterSeconds: 0 };
  }

  const sweep = setInterval(() => {
    const t = now();
    for (const [key, value] of tat) if (value <= t) tat.delete(key);
  }, 60_000);
  sweep.unref();

  return {
    hit: async (key, limit, windowSeconds) => decide(key, limit, windowSeconds, true),
    peek: async (key, limit, windowSeconds) => decide(key, limit, windowSeconds, false),
    reset: async (key) => void tat.delete(key),
  };
}
