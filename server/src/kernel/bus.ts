import type { Redis } from 'ioredis';

/**
 * Cross-instance notifications that must reach every process at once: a revoked session or API
 * key, an account whose tier or status changed. In memory, a message reaches this process
 * only; on Redis, pub/sub carries it to every instance (including the sender, which is fine:
 * every handler is idempotent).
 */
export type BusMessage =
  | { type: 'sessions-revoked'; ids: string[]; until: number }
  | { type: 'api-keys-revoked'; hashes: string[] }
  /** A key renamed, narrowed, limited or rolled: instances drop what they cached under these hashes. */
  | { type: 'api-keys-changed'; hashes: string[] }
  | { type: 'account-changed'; userId: string }
  /** An organization's tier, limits or name changed, or it was deleted. */
  | { type: 'organization-changed'; orgId: string }
  /** A member joined, changed role or left: their tokens act in the organization as it now stands. */
  | { type: 'membership-changed'; orgId: string; userId: string };

export interface Bus {
  publish(message: BusMessage): Promise<void>;
  subscribe(handler: (message: BusMessage) => void): void;
  /** Called after a lost connection comes back: messages may have been missed meanwhile. */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export function createMemoryBus(): Bus {
  const handlers: Array<(m: BusMessage) => void> = [];
  return {
    async publish(message) {
      for (const h of handlers) h(message);
    },
    subscribe: (handler) => void handlers.push(handler),
    onReconnect: () => {},
    close: async () => {},
  };
}

const CHANNEL = 'gatehouse:bus:v1';

/** For one-shot tools (the CLI): send one message to every running instance. */
export async function publishOnce(redis: Redis, message: BusMessage): Promise<void> {
  await redis.publish(CHANNEL, JSON.stringify(message));
}

export async function createRedisBus(deps: { publisher: Redis; subscriber: Redis; onError: (error: unknown) => void }): Promise<Bus> {
  const { publisher, subscriber } = deps;
  const handlers: Array<(m: BusMessage) => void> = [];
  const reconnectHandlers: Array<() => void> = [];
  const deliver = (message: BusMessage) => {
    for (const h of handlers) h(message);
  };
  subscriber.on('message', (channel: string, raw: string) => {
    if (channel !== CHANNEL) return;
    try {
      deliver(JSON.parse(raw) as BusMessage);
    } catch (error) {
      deps.onError(error);
    }
  });
  let wasReady = true;
  subscriber.on('close', () => (wasReady = false));
  subscriber.on('ready', () => {
    if (!wasReady) for (const h of reconnectHandlers) h();
    wasReady = true;
  });
  // Not awaited: with Redis down at start, the subscription completes once it is reachable
  // (the subscriber queues it) instead of blocking the start.
  subscriber.subscribe(CHANNEL).catch(deps.onError);
  return {
    async publish(message) {
      // Act locally first: this instance must never depend on Redis to honour its own revocation.
      deliver(message);
      try {
        await publisher.publish(CHANNEL, JSON.stringify(message));
      } catch (error) {
        deps.onError(error);
      }
    },
    subscribe: (handler) => void handlers.push(handler),
    onReconnect: (handler) => void reconnectHandlers.push(handler),
    // The owner disconnects the subscriber; an unsubscribe queued on a dead link would never return.
    close: async () => {},
  };
}
