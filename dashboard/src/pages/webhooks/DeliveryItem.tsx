import { Facts } from '../../components/Facts.tsx';
import type { WebhookDelivery } from '../../lib/api.ts';
import { formatDateTime, formatDateTimeSeconds, formatNumber } from '../../lib/format.ts';
import { DeliveryActions } from './DeliveryActions.tsx';
import { attemptOutcome, DeliveryStatus } from './DeliveryStatus.tsx';

interface Props {
  delivery: WebhookDelivery;
  /** Whether the endpoint is enabled (a disabled one takes no redelivery). */
  enabled: boolean;
  onRedelivered: (delivery: WebhookDelivery) => void;
}

/** One delivery: a line that opens (a native <details>) to its facts, every attempt, and its actions. */
export function DeliveryItem({ delivery: d, enabled, onRedelivered }: Props) {
  const last = d.attempts[d.attempts.length - 1];
  return (
    <li class="delivery">
      <details>
        <summary>
          <DeliveryStatus status={d.status} /> <code>{d.event_type}</code>
          <span class="delivery-meta">
            {formatDateTime(d.created_at)} · {d.attempt_count === 1 ? '1 attempt' : `${d.attempt_count} attempts`}
            {last && ` · last: ${attemptOutcome(last)}`}
          </span>
        </summary>
        <div class="delivery-body">
          <Facts
            items={[
              ['webhook-id', <code>{d.event_id}</code>],
              ['Next attempt', d.next_attempt_at ? formatDateTimeSeconds(d.next_attempt_at) : d.status === 'delivered' ? 'none: delivered' : 'none: given up'],
            ]}
          />
          {d.attempts.length === 0 ? (
            <p class="hint">Not attempted yet.</p>
          ) : (
            <ol class="attempts" aria-label={`Attempts to deliver ${d.event_type}`}>
              {d.attempts.map((a, i) => (
                <li key={a.attempted_at + i} class="attempt">
                  <p class="attempt-line">
                    <span class={a.status_code !== null && a.status_code < 300 ? 'attempt-ok' : 'attempt-failed'}>{attemptOutcome(a)}</span>
                    <span>{formatDateTimeSeconds(a.attempted_at)}</span>
                    <span>{formatNumber(a.duration_ms)} ms</span>
                  </p>
                  {/* The first bytes of the receiver's answer; null when it did not answer. */}
                  {a.response_excerpt !== null && (
                    <figure class="excerpt">
                      <figcaption>Response</figcaption>
                      <pre>{a.response_excerpt || '(empty)'}</pre>
                    </figure>
                  )}
                </li>
              ))}
            </ol>
          )}
          <DeliveryActions delivery={d} enabled={enabled} onRedelivered={onRedelivered} />
        </div>
      </details>
    </li>
  );
}
