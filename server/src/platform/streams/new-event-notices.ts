import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { batchPerTurn } from '../../kernel/turn-batch.js';

/**
 * "Organization O has newly committed events": the one message live streams need to cross
 * instances. It carries no event; every instance that has a stream of O numbers and reads what it
 * has not seen from the database (event-feed.ts), so a notice lost on the way costs a delay until
 * the next one (or the feed's periodic check), never an event, and Redis never holds an
 * organization's data.
 *
 * In memory a notice reaches this process. On Redis each organization has its own channel, which
 * an instance subscribes to only while it holds one of the organization's streams, so an instance
 * hears about the organizations it serves and nothing else.
 */
export interface EventNotices {
  publish(orgId: string): void;
  /** Starts hearing an organization; resolves once notices for it will arrive. */
  listen(orgId: string): Promise<void>;
  unlisten(orgId: string): void;
  onNotice(handler: (orgId: string) => void): void;
  /** Called after a lost Redis connection comes back: notices may have been missed meanwhile. */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export function createMemoryEventNotices(): EventNotices {
  const handlers: Array<(orgId: string) => void> = [];
  return {
    publish: (orgId) => {
      for (const h of handlers) h(orgId);
    },
    listen: async () => {},
    unlisten: () => {},
    onNotice: (handler) => void handlers.push(handler),
    onReconnect: () => {},
    close: async () => {},
  };
}

const SUBSCRIBE_WAIT_MS = 2_000;

export function createRedisEventNotices(deps: { publisher: Redis; subscriber: Redis; prefix: string; onError: (error: unknown) => void }): EventNotices {
  const { publisher, subscriber } = deps;
  // `live:`, as before the file's rename: instances of either version hear each other in a rolling upgrade.
  const channelPrefix = `${deps.prefix}live:`;
  const handlers: Array<(orgId: string) => void> = [];
  const reconnectHandlers: Array<() => void> = [];
  const local = (orgId: string) => {
    for (const h of handlers) h(orgId);
  };
  // This instance heard its own notices at once: the echo from Redis is skipped.
  const self = randomUUID();
  subscriber.on('message', (channel: string, from: string) => {
    if (channel.startsWith(channelPrefix) && from !== self) local(channel.slice(channelPrefix.length));
  });
  const toRedis = batchPerTurn<string>((orgIds) => {
    const pipeline = publisher.pipeline();
    for (const orgId of new Set(orgIds)) pipeline.publish(channelPrefix + orgId, self);
    pipeline.exec().catch(deps.onError);
  }, 1_000);
  let wasReady = true;
  subscriber.on('close', () => (wasReady = false));
  subscriber.on('ready', () => {
    if (!wasReady) for (const h of reconnectHandlers) h();
    wasReady = true;
  });
  return {
    publish(orgId) {
      // This instance's own streams hear at once; the others through Redis, the notices of one
      // event-loop turn in one pipeline (not awaited: the request that committed does not wait).
      local(orgId);
      toRedis(orgId);
    },
    async listen(orgId) {
      // With Redis away the subscription waits for it; the stream starts anyway and hears of other
      // instances' events from the feed's periodic check until the subscription is through.
      const subscribed = subscriber.subscribe(channelPrefix + orgId).catch(deps.onError);
      await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
    },
    unlisten(orgId) {
      subscriber.unsubscribe(channelPrefix + orgId).catch(deps.onError);
    },
    onNotice: (handler) => void handlers.push(handler),
    onReconnect: (handler) => void reconnectHandlers.push(handler),
    close: async () => subscriber.disconnect(),
  };
}
