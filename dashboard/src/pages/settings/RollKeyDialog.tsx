import { useState } from 'preact/hooks';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Modal } from '../../components/Modal.tsx';
import { NewSecretOnce, OldSecretPeriodField } from '../../components/ReplacedSecret.tsx';
import { gatehouse, type ApiKey, type CreatedApiKey } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

interface Props {
  /** The key being rolled; null: the dialog is closed. */
  apiKey: ApiKey | null;
  /** Told as soon as the new secret exists (the dialog then shows it until closed). */
  onRolled: (key: CreatedApiKey) => void;
  onClose: () => void;
}

/** Rolls a key (POST /v1/api-keys/{id}/roll): choose how long the old secret keeps working, then see the new one once. */
export function RollKeyDialog({ apiKey, onRolled, onClose }: Props) {
  return (
    <Modal open={apiKey !== null} labelledBy="roll-key-title rolled-api-key-title" onCancel={onClose} initialFocus="#field-grace">
      {apiKey && <RollKeySteps key={apiKey.id} apiKey={apiKey} onRolled={onRolled} onClose={onClose} />}
    </Modal>
  );
}

function RollKeySteps({ apiKey, onRolled, onClose }: Props & { apiKey: ApiKey }) {
  const [grace, setGrace] = useState('3600');
  const [rolled, setRolled] = useState<CreatedApiKey | null>(null);
  const roll = useAction(async () => {
    const created = await gatehouse.apiKeys.roll(apiKey.id, { grace_seconds: Number(grace) });
    setRolled(created);
    onRolled(created);
  });
  if (rolled) {
    return (
      <NewSecretOnce
        id="rolled-api-key"
        title={`New secret for “${rolled.name}”`}
        secret={rolled.key}
        oldUntil={rolled.previous_key_expires_at}
        untilText={(until) => `The old secret works until ${until}, then it is refused.`}
        stoppedText="The old secret no longer works."
        onDone={onClose}
      />
    );
  }
  return (
    <FormDialog
      titleId="roll-key-title"
      title={`Roll the key “${apiKey.name}”?`}
      intro={
        <p class="dialog-body">
          A new secret replaces <code>{apiKey.prefix}…{apiKey.last_four}</code>. The key keeps its name, scopes, limits and usage; programs must switch
          to the new secret.
        </p>
      }
      submission={roll}
      stepUp
      submitLabel="Roll key"
      busyLabel="Rolling…"
      variant="danger"
      onCancel={onClose}
    >
      <OldSecretPeriodField label="Keep the old secret working" name="grace" noneLabel="No: refuse it at once" value={grace} onValue={setGrace} error={roll.error?.fields.grace_seconds} />
    </FormDialog>
  );
}
