import type { IncomingMessage } from 'node:http';
import type { RateDecision } from '../modules/limits/rate-limiter.js';

/**
 * A request the hot path (hot-path.ts) already counted against the account's budget but did
 * not answer (the budget was used up, or the limiter failed): it hands the outcome to Fastify
 * with the request, so the authenticate step reports it instead of counting the request twice.
 * Kept beside the Node request object, not on it: nothing a client sends can set it, and Node's
 * own objects keep their shape.
 */
export interface Precounted {
  error: unknown;
  decision: RateDecision | undefined;
}

const handedOver = new WeakMap<IncomingMessage, Precounted>();

export function setPrecounted(req: IncomingMessage, outcome: Precounted): void {
  handedOver.set(req, outcome);
}

/** The outcome handed over with this request, once (a second call finds nothing). */
export function takePrecounted(req: IncomingMessage): Precounted | undefined {
  const outcome = handedOver.get(req);
  if (outcome !== undefined) handedOver.delete(req);
  return outcome;
}
