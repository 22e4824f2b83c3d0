/**
 * Which sessions have been revoked while their access tokens may still be alive. Checked on
 * every authenticated request, so the check is a synchronous in-memory lookup; entries are
 * dropped once every token of the session has expired anyway.
 *
 * This is the in-process implementation; a Redis-backed one (pub/sub into the same local map)
 * makes revocation reach every instance.
 */
export interface RevocationList {
  revoke(sessionIds: string[], untilEpochMs: number): Promise<void>;
  isRevoked(sessionId: string): boolean;
  close(): Promise<void>;
}

export function createMemoryRevocationList(now: () => number = Date.now): RevocationList {
  const revoked = new Map<string, number>();
  const sweep = setInterval(() => {
    const t = now();
    for (const [sid, until] of revoked) if (until <= t) revoked.delete(sid);
  }, 60_000);
  sweep.unref();
  return {
    async revoke(sessionIds, untilEpochMs) {
      for (const sid of sessionIds) revoked.set(sid, Math.max(untilEpochMs, revoked.get(sid) ?? 0));
    },
    isRevoked(sessionId) {
      const until = revoked.get(sessionId);
      return until !== undefined && until > now();
    },
    async close() {
      clearInterval(sweep);
    },
  };
}
