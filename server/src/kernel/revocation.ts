import { createMemoryBus, type Bus } from './bus.js';

/**
 * Which sessions have been revoked while their access tokens may still be alive. Checked on
 * every authenticated request, so the check is a synchronous in-memory lookup; entries are
 * dropped once every token of the session has expired anyway.
 *
 * A revocation is published on the bus; every instance (this one included) adds it to its own
 * map when the message arrives. On the memory bus that is this process only; on Redis, all.
 */
export interface RevocationList {
  revoke(sessionIds: string[], untilEpochMs: number): Promise<void>;
  isRevoked(sessionId: string): boolean;
  close(): Promise<void>;
}

export function createRevocationList(bus: Bus, now: () => number = Date.now): RevocationList {
  const revoked = new Map<string, number>();
  bus.subscribe((message) => {
    if (message.type !== 'sessions-revoked') return;
    for (const sid of message.ids) revoked.set(sid, Math.max(message.until, revoked.get(sid) ?? 0));
  });
  const sweep = setInterval(() => {
    const t = now();
    for (const [sid, until] of revoked) if (until <= t) revoked.delete(sid);
  }, 60_000);
  sweep.unref();
  return {
    async revoke(sessionIds, untilEpochMs) {
      if (sessionIds.length) await bus.publish({ type: 'sessions-revoked', ids: sessionIds, until: untilEpochMs });
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

/** A revocation list of this process alone (tests, tools). */
export function createMemoryRevocationList(now: () => number = Date.now): RevocationList {
  return createRevocationList(createMemoryBus(), now);
}
