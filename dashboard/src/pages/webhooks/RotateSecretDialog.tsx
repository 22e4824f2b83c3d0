import { useState } from 'preact/hooks';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Modal } from '../../components/Modal.tsx';
import { NewSecretOnce, OldSecretPeriodField } from '../../components/ReplacedSecret.tsx';
import { gatehouse, type CreatedWebhookEndpoint, type WebhookEndpoint } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAction } from '../../lib/hooks.ts';

interface Props {
  /** The endpoint whose secret is rotated; null: the dialog is closed. */
  endpoint: WebhookEndpoint | null;
  /** Told as soon as the new secret exists, with the endpoint (without the secret). */
  onRotated: (endpoint: WebhookEndpoint) => void;
  onClose: () => void;
}

/**
 * Rotates the signing secret (POST /v1/webhooks/{id}/rotate-secret): choose how long the old one
 * signs beside the new one, then see the new one once, like the API keys' Roll.
 */
export function RotateSecretDialog({ endpoint, onRotated, onClose }: Props) {
  return (
    <Modal open={endpoint !== null} labelledBy="rotate-secret-title rotated-webhook-secret-title" onCancel={onClose} initialFocus="#field-overlap">
      {endpoint && <RotateSecretSteps key={endpoint.id} endpoint={endpoint} onRotated={onRotated} onClose={onClose} />}
    </Modal>
  );
}

function RotateSecretSteps({ endpoint, onRotated, onClose }: Props & { endpoint: WebhookEndpoint }) {
  const [overlap, setOverlap] = useState('86400');
  const [rotated, setRotated] = useState<CreatedWebhookEndpoint | null>(null);
  const rotate = useAction(async () => {
    const created = await gatehouse.webhooks.rotateSecret(endpoint.id, { overlap_seconds: Number(overlap) });
    setRotated(created);
    // The page keeps the endpoint, not its secret: that stays in this dialog until it closes.
    const { secret: _secret, ...rest } = created;
    onRotated(rest);
  });
  if (rotated) {
    return (
      <NewSecretOnce
        id="rotated-webhook-secret"
        title="New signing secret"
        secret={rotated.secret}
        oldUntil={rotated.previous_secret_expires_at}
        untilText={(until) => `Until ${until} every delivery carries two signatures, one with the old secret and one with this one; after that, only this one signs.`}
        stoppedText="The old secret no longer signs: receivers must verify with this one now."
        onDone={onClose}
      />
    );
  }
  const running = endpoint.previous_secret_expires_at;
  return (
    <FormDialog
      titleId="rotate-secret-title"
      title="Rotate the signing secret?"
      intro={
        <div class="dialog-body">
          <p>
            A new <code>whsec_…</code> secret signs every delivery from now on. While the old one signs too, each delivery carries both signatures in{' '}
            <code>webhook-signature</code>, so receivers verify with either while you move them to the new secret.
          </p>
          {running && <p>The secret before the current one, which signs until {formatDateTime(running)}, stops at once: at most two secrets sign.</p>}
        </div>
      }
      submission={rotate}
      submitLabel="Rotate secret"
      busyLabel="Rotating…"
      variant="danger"
      onCancel={onClose}
    >
      <OldSecretPeriodField label="Keep signing with the old secret too" name="overlap" noneLabel="No: only the new secret signs from now on" value={overlap} onValue={setOverlap} error={rotate.error?.fields.overlap_seconds} />
    </FormDialog>
  );
}
