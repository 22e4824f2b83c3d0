import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse, type ApiKey } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

interface Props {
  /** The key being renamed; null: the dialog is closed. */
  apiKey: ApiKey | null;
  onRenamed: (key: ApiKey) => void;
  onCancel: () => void;
}

/** Renames a key (PATCH /v1/api-keys/{id}); its secret stays the same. */
export function RenameKeyDialog({ apiKey, onRenamed, onCancel }: Props) {
  return (
    <Modal open={apiKey !== null} labelledBy="rename-key-title" onCancel={onCancel} initialFocus="#field-key-rename">
      {apiKey && <RenameKeyForm key={apiKey.id} apiKey={apiKey} onRenamed={onRenamed} onCancel={onCancel} />}
    </Modal>
  );
}

function RenameKeyForm({ apiKey, onRenamed, onCancel }: Props & { apiKey: ApiKey }) {
  const [name, setName] = useState(apiKey.name);
  const { run, busy, error } = useAction(async () => {
    onRenamed(await gatehouse.apiKeys.update(apiKey.id, { name: name.trim() }));
  });
  return (
    <>
      <h2 id="rename-key-title">Rename the key “{apiKey.name}”</h2>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" aria-labelledby="rename-key-title" onSubmit={() => run()}>
        <Field label="New name" name="key-rename" required maxLength={100} value={name} onValue={setName} error={error?.fields.name} hint="The secret stays the same." />
        <div class="actions">
          <button type="button" class="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
          <SubmitButton busy={busy} busyLabel="Saving…">
            Save name
          </SubmitButton>
        </div>
      </ActionForm>
    </>
  );
}
