import { useState } from 'preact/hooks';
import { Icon } from '../../components/Icon.tsx';
import type { WebhookEndpoint } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { RotateSecretDialog } from './RotateSecretDialog.tsx';

/**
 * How the endpoint's deliveries are signed. The secret itself was shown once, when the endpoint
 * was added (or last rotated); Rotate secret makes a new one, the old one signing too for an overlap.
 */
export function SigningSecretSection({ endpoint, onRotated }: { endpoint: WebhookEndpoint; onRotated: (endpoint: WebhookEndpoint) => void }) {
  const [rotating, setRotating] = useState<WebhookEndpoint | null>(null);
  const overlapEnd = endpoint.previous_secret_expires_at;
  return (
    <section class="card" aria-labelledby="signing-secret-title">
      <div class="card-head card-head-wrap">
        <h2 id="signing-secret-title">Signing secret</h2>
        <button type="button" class="button button-secondary button-small" onClick={() => setRotating(endpoint)}>
          <Icon name="key" />
          Rotate secret
        </button>
      </div>
      <p>
        Every delivery carries <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers (Standard Webhooks). Verify the
        signature with the endpoint’s <code>whsec_…</code> secret, shown once when the endpoint was added or its secret rotated, and drop a{' '}
        <code>webhook-id</code> you have seen before.
      </p>
      {overlapEnd && (
        <p class="alert alert-info">
          Deliveries are signed with the previous secret too until {formatDateTime(overlapEnd)}: move every receiver to the new one before then.
        </p>
      )}
      <RotateSecretDialog endpoint={rotating} onRotated={onRotated} onClose={() => setRotating(null)} />
    </section>
  );
}
