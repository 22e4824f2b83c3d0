import type { Clock } from '../../kernel/clock.js';
import { postJson } from '../../kernel/outbound/post-json.js';
import type { EventSignal } from '../../kernel/events/event-signal.js';
import type { Claim, DeliveryStore } from './delivery-store.js';
import { EXCERPT_BYTES, responseExcerpt } from './response-excerpt.js';
import { signingSecrets, signatureHeader } from './webhook-secret.js';

/**
 * Sends due deliveries. Every instance runs one: it polls (and wakes at once when this instance
 * records events), claims rows through the store (never the same row as another instance), and
 * sends at most `concurrency` requests at a time. All of it is asynchronous I/O beside the HTTP
 * server, never in a request's path. stop() aborts requests in flight and hands their claims
 * back, so a restart or another instance sends them again at once.
 */
export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  clock: Clock;
  signal: EventSignal;
  allowPrivate: boolean;
  /** GATEHOUSE_SECRET, to open sealed endpoint secrets. */
  secret: string | undefined;
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
  onError(error: unknown): void;
}

export function createDeliveryWorker(o: DeliveryWorkerOptions) {
  const inFlight = new Map<string, Promise<void>>();
  const aborter = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let started = false;
  let again = false;
  let current: Promise<void> | null = null;

  async function deliver(c: Claim): Promise<void> {
    if (!c.endpointEnabled) {
      await o.store.record(c, { kind: 'endpoint_disabled' });
      return;
    }
    const body = JSON.stringify({ id: c.eventId, type: c.eventType, created_at: c.eventCreatedAt, data: JSON.parse(c.eventData) as unknown });
    const timestamp = Math.floor(o.clock.now() / 1000);
    const headers = {
      'webhook-id': c.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(signingSecrets(c, o.clock.now(), o.secret), c.eventId, timestamp, body),
    };
    const result = await postJson(c.url, body, headers, { allowPrivate: o.allowPrivate, timeoutMs: o.timeoutMs, signal: aborter.signal, excerptBytes: EXCERPT_BYTES });
    if (result.aborted) return o.store.release(c);
    await o.store.record(c, {
      kind: 'attempted', status: result.status, error: result.error, durationMs: result.durationMs,
      responseExcerpt: responseExcerpt(result.excerpt, result.excerptCut),
    });
  }

  /** Claims while there is room; a delivery finishing makes room and wakes the loop again. */
  async function fill(): Promise<void> {
    do {
      again = false;
      const room = o.concurrency - inFlight.size;
      if (room <= 0 || stopped) return;
      const claims = await o.store.claim(room);
      for (const c of claims) {
        const run = deliver(c).catch(o.onError).finally(() => {
          inFlight.delete(c.id);
          wake();
        });
        inFlight.set(c.id, run);
      }
      if (claims.length === room) again = true;
    } while (again && !stopped);
  }

  function wake(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (current) {
      again = true; // the running loop goes round once more
      return current;
    }
    current = fill().catch(o.onError).finally(() => {
      current = null;
      if (again) void wake(); // asked for while the loop was finishing
    });
    return current;
  }

  return {
    start(): void {
      if (started) return;
      started = true;
      o.signal.onDeliveries(() => void wake());
      timer = setInterval(() => void wake(), o.pollMs);
      timer.unref();
      void wake();
    },

    /** Looks for due deliveries now (a redelivery made some due) instead of at the next poll. */
    wake(): void {
      void wake();
    },

    /** Sends what is due now and waits for those sends to finish (tests drive the worker with it). */
    async runOnce(): Promise<void> {
      await wake();
      while (inFlight.size > 0 || current) {
        await Promise.allSettled([...inFlight.values()]);
        if (current) await current;
      }
    },

    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      aborter.abort();
      if (current) await current;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
