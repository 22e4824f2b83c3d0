import { useState } from 'preact/hooks';
import { CopyButton } from '../../components/CopyButton.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { gatehouse, type WebhookDelivery } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

interface Props {
  delivery: WebhookDelivery;
  /** Whether the endpoint is enabled: the server refuses to redeliver to a disabled one (409). */
  enabled: boolean;
  /** Told with the delivery, pending and due now, once the server has queued it again. */
  onRedelivered: (delivery: WebhookDelivery) => void;
}

/**
 * What one can do with one delivery, under its attempts. The event id is the `webhook-id` header
 * the receiver saw: copied, it finds the delivery in the receiver's own logs. Redeliver sends the
 * same event again, with that same webhook-id, so a receiver that already has it can drop it.
 */
export function DeliveryActions({ delivery, enabled, onRedelivered }: Props) {
  const [queued, setQueued] = useState(false);
  const redeliver = useAction(async () => {
    setQueued(false);
    const again = await gatehouse.webhooks.redeliver(delivery.endpoint_id, delivery.id);
    setQueued(true);
    onRedelivered(again);
  });
  return (
    <div class="delivery-actions">
      <div class="actions">
        {enabled && (
          <button type="button" class="button button-secondary" aria-disabled={redeliver.busy ? 'true' : undefined} onClick={() => void redeliver.run()}>
            <Icon name="send" />
            {redeliver.busy ? 'Redelivering…' : 'Redeliver'}
          </button>
        )}
        <CopyButton text={delivery.event_id} label="Copy the webhook-id" />
      </div>
      {queued && <Notice>Queued again with the same webhook-id: the next attempt is due now and appears above.</Notice>}
      <ErrorAlert error={redeliver.error} />
    </div>
  );
}
