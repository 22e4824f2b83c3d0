import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { batchPerTurn } from '../../kernel/turn-batch.js';

/**
 * "Account U has newly committed events": the one message live streams need to cross instances.
 * It carries no event; every instance that has a stream of U numbers and reads what it has not
 * seen from the database (event-feed.ts), so a notice lost on the way costs a delay until the
 * next one (or the feed's periodic check), never an event, and Redis never holds account data.
 *
 * In memory a notice reaches this process. On Redis each account has its own channel, which an
 * instance subscribes to only while it holds one of the account's streams, so an instance hears
 * about the accounts it serves and nothing else.
 */
export interface LiveNotices {
  publish(userId: string): void;
  /** Starts hearing an account; resolves once notices for it will arrive. */
  listen(userId: string): Promise<void>;
  unlisten(userId: string): void;
  onNotice(handler: (userId: string) => void): void;
  /** Called after a lost Redis connection comes back: notices may have been missed meanwhile. */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export function createMemoryLiveNotices(): LiveNotices {
  const handlers: Array<(userId: string) => void> = [];
  return {
    publish: (userId) => {
      for (const h of handlers) h(userId);
    },
    listen: async () => {},
    unlisten: () => {},
    onNotice: (handler) => void handlers.push(handler),
    onReconnect: () => {},
    close: async () => {},
  };
}

const SUBSCRIBE_WAIT_MS = 2_000;

export function createRedisLiveNotices(deps: { publisher: Redis; subscriber: Redis; prefix: string; onError: (error: unknown) => void }): LiveNotices {
  const { publisher, subscriber } = deps;
  const channelPrefix = `${deps.prefix}live:`;
  const handlers: Array<(userId: string) => void> = [];
  const reconnectHandlers: Array<() => void> = [];
  const local = (userId: string) => {
    for (const h of handlers) h(userId);
  };
  // This instance heard its own notices at once: the echo from Redis is skipped.
  const self = randomUUID();
  subscriber.on('message', (channel: string, from: string) => {
    if (channel.startsWith(channelPrefix) && from !== self) local(channel.slice(channelPrefix.length));
  });
  const toRedis = batchPerTurn<string>((userIds) => {
    const pipeline = publisher.pipeline();
    for (const userId of new Set(userIds)) pipeline.publish(channelPrefix + userId, self);
    pipeline.exec().catch(deps.onError);
  }, 1_000);
  let wasReady = true;
  subscriber.on('close', () => (wasReady = false));
  subscriber.on('ready', () => {
    if (!wasReady) for (const h of reconnectHandlers) h();
    wasReady = true;
  });
  return {
    publish(userId) {
      // This instance's own streams hear at once; the others through Redis, the notices of one
      // event-loop turn in one pipeline (not awaited: the request that committed does not wait).
      local(userId);
      toRedis(userId);
    },
    async listen(userId) {
      // With Redis away the subscription waits for it; the stream starts anyway and hears of other
      // instances' events from the feed's periodic check until the subscription is through.
      const subscribed = subscriber.subscribe(channelPrefix + userId).catch(deps.onError);
      await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
    },
    unlisten(userId) {
      subscriber.unsubscribe(channelPrefix + userId).catch(deps.onError);
    },
    onNotice: (handler) => void handlers.push(handler),
    onReconnect: (handler) => void reconnectHandlers.push(handler),
    close: async () => subscriber.disconnect(),
  };
}
