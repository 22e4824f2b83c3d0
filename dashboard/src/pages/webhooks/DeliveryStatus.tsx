import type { WebhookDelivery } from '../../lib/api.ts';

type Attempt = WebhookDelivery['attempts'][number];

const STATUS_BADGE: Record<WebhookDelivery['status'], string> = { delivered: 'badge-ok', pending: 'badge-info', failed: 'badge-warn' };

export function DeliveryStatus({ status }: { status: WebhookDelivery['status'] }) {
  return <span class={`badge ${STATUS_BADGE[status]}`}>{status}</span>;
}

/** An attempt's outcome in a few words: the receiver's status code, or why there was none. */
export function attemptOutcome(attempt: Pick<Attempt, 'status_code' | 'error'>): string {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  return attempt.error ?? 'no answer';
}
