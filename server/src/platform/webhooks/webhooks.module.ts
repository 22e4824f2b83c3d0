import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { EventSignal } from '../../kernel/events/event-signal.js';
import { createDeliveryStore } from './delivery-store.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { createWebhooksService } from './webhooks.service.js';

/** A receiver gets this long to answer (headers) before the attempt counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A claim's lease: longer than one attempt can take (timeout + time to write the outcome), so a
 * live worker never loses its claim, short enough that a crashed instance's claims are retaken
 * soon by another instance or by itself after a restart.
 */
export const CLAIM_LEASE_MS = DELIVERY_TIMEOUT_MS + 10_000;

/** The API service and this instance's delivery worker, wired from the config. */
export function createWebhooks(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; config: Config; events: EventSignal; attempts: AttemptLimiter; onError(error: unknown): void }) {
  const { db, dialect, clock, config } = deps;
  const service = createWebhooksService({
    db, dialect, clock, allowPrivate: config.webhookAllowPrivate, secret: config.secret, maxEndpoints: config.caps.webhooksPerOrganization,
    onEvent: deps.events.committed, wakeWorker: () => worker.wake(), attempts: deps.attempts,
  });
  const store = createDeliveryStore({ db, dialect, clock, retryDelays: config.webhookRetryDelays, leaseMs: CLAIM_LEASE_MS });
  const worker = createDeliveryWorker({
    store, clock, signal: deps.events, allowPrivate: config.webhookAllowPrivate, secret: config.secret,
    timeoutMs: DELIVERY_TIMEOUT_MS, pollMs: 1_000, concurrency: 16, onError: deps.onError,
  });
  return { service, store, worker };
}
export type Webhooks = ReturnType<typeof createWebhooks>;
