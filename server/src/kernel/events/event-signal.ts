import type { RecordedEvent } from './event-outbox.js';

/**
 * What a service calls right after a transaction that recorded events commits: `committed(…)`
 * with what `recordEvent` returned. It wakes this instance's delivery worker when deliveries
 * were written (so they go out in milliseconds instead of at the next poll; other instances find
 * the rows on their own poll) and tells the live streams (platform/streams/) that the organization
 * has new events. Both are optimisations of something that also happens without them: the worker
 * polls, and a stream that missed a notice catches up at the next one or on reconnect.
 */
export interface EventSignal {
  committed(...recorded: RecordedEvent[]): void;
  /** The delivery worker: deliveries were written. */
  onDeliveries(listener: () => void): void;
  /** The live streams: the organization has newly committed events. */
  onCommitted(listener: (orgId: string) => void): void;
}

export type OnEventsCommitted = EventSignal['committed'];

export function createEventSignal(): EventSignal {
  const deliveryListeners: Array<() => void> = [];
  const commitListeners: Array<(orgId: string) => void> = [];
  return {
    committed(...recorded) {
      if (recorded.length === 0) return;
      if (recorded.some((r) => r.deliveries > 0)) for (const l of deliveryListeners) l();
      // One notice per organization: a stream reads whatever is new.
      for (const orgId of new Set(recorded.map((r) => r.orgId))) for (const l of commitListeners) l(orgId);
    },
    onDeliveries: (listener) => void deliveryListeners.push(listener),
    onCommitted: (listener) => void commitListeners.push(listener),
  };
}
