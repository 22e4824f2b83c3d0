/**
 * Counting limiter for abuse control: failed logins (per email and per IP), current-password
 * checks (per account), public endpoints and account routes (per IP, per account), mail sends.
 * GCRA over a rolling window: `limit` attempts per `windowSeconds`, bursts up to `limit`, no
 * reset-boundary double burst. In memory, bounded; the Redis implementation shares it across
 * instances and answers the same (attempt-limiter.contract.ts runs against both).
 *
 * An attempt is taken BEFORE the work it guards (a password hash check, say) and given back when
 * the work succeeded. Checking first and counting afterwards would let every request of a
 * concurrent burst pass the check before any of them was counted.
 */
export interface AttemptBucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** Attempts left in the fullest bucket after this one. */
  remaining: number;
  /** Seconds until every bucket would admit one more attempt (0 when allowed). */
  retryAfterSeconds: number;
}

export interface AttemptLimiter {
  /**
   * Takes one attempt from every bucket, atomically: all of them, or (when any is full) none.
   * Nothing else can interleave, so no number of concurrent callers gets more than the limit.
   */
  take(buckets: readonly AttemptBucket[]): Promise<LimitDecision>;
  /**
   * The same take, answered through `callback`: synchronously in memory, so the request path (the
   * account routes' abuse limit, on every request to them) makes no promise; after the round trip
   * on Redis. The `consumeThen` shape of the budget limiter (kernel/limits/rate-limiter.ts).
   */
  takeThen(buckets: readonly AttemptBucket[], callback: LimitDecisionCallback): void;
  /** Gives back one attempt to each bucket (the guarded work succeeded). */
  giveBack(buckets: readonly AttemptBucket[]): Promise<void>;
  /** Forgets a bucket entirely (a password reset clears the failed logins of its account). */
  reset(key: string): Promise<void>;
}

/** A take's answer: the decision, or (decision undefined) the error that kept it from being made. */
export type LimitDecisionCallback = (error: unknown, decision?: LimitDecision) => void;

/** `takeThen` for a limiter whose take is a promise (Redis). */
export function takeThenOf(take: AttemptLimiter['take']): AttemptLimiter['takeThen'] {
  return (buckets, callback) => void take(buckets).then((decision) => callback(undefined, decision), callback);
}

/** One bucket's decision in GCRA terms; shared arithmetic, mirrored by the Redis script. */
export function gcraDecision(tat: number | undefined, now: number, bucket: AttemptBucket): { allowed: boolean; next: number; remaining: number; waitMs: number } {
  const window = bucket.windowSeconds * 1000;
  const interval = window / bucket.limit;
  const next = Math.max(tat ?? now, now) + interval;
  const allowAt = next - window;
  if (allowAt > now) return { allowed: false, next, remaining: 0, waitMs: allowAt - now };
  return { allowed: true, next, remaining: Math.max(0, Math.floor((window - (next - now)) / interval)), waitMs: 0 };
}

/** Several buckets' decisions as one answer: refused if any refuses, waiting for the slowest. */
export function combineDecisions(parts: ReadonlyArray<{ allowed: boolean; remaining: number; waitMs: number }>): LimitDecision {
  // One pass, no intermediate arrays: the account routes combine two buckets on every request.
  let allowed = true;
  let remaining = Infinity;
  let waitMs = 0;
  for (const part of parts) {
    if (part.allowed) remaining = Math.min(remaining, part.remaining);
    else {
      allowed = false;
      waitMs = Math.max(waitMs, part.waitMs);
    }
  }
  return allowed ? { allowed, remaining, retryAfterSeconds: 0 } : { allowed, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

export function createMemoryAttemptLimiter(opts: { now?: () => number; maxKeys?: number } = {}): AttemptLimiter {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  // Theoretical arrival time per key (GCRA): the moment the bucket would be empty again.
  const tat = new Map<string, number>();

  const sweep = setInterval(() => {
    const t = now();
    for (const [key, value] of tat) if (value <= t) tat.delete(key);
  }, 60_000);
  sweep.unref();

  // Synchronous inside, so a take is atomic in this process without any lock.
  function take(buckets: readonly AttemptBucket[]): LimitDecision {
    const t = now();
    const parts = buckets.map((b) => gcraDecision(tat.get(b.key), t, b));
    const decision = combineDecisions(parts);
    if (!decision.allowed) return decision;
    buckets.forEach((b, i) => {
      if (!tat.has(b.key) && tat.size >= maxKeys) tat.delete(tat.keys().next().value as string);
      tat.set(b.key, parts[i]!.next);
    });
    return decision;
  }

  function giveBack(buckets: readonly AttemptBucket[]): void {
    const t = now();
    for (const b of buckets) {
      const current = tat.get(b.key);
      if (current === undefined) continue;
      const back = current - (b.windowSeconds * 1000) / b.limit;
      if (back <= t) tat.delete(b.key);
      else tat.set(b.key, back);
    }
  }

  return {
    take: async (buckets) => take(buckets),
    takeThen: (buckets, callback) => callback(undefined, take(buckets)),
    giveBack: async (buckets) => giveBack(buckets),
    reset: async (key) => void tat.delete(key),
  };
}
