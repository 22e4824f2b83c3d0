import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Modal } from '../../components/Modal.tsx';
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
  const rename = useAction(async () => {
    onRenamed(await gatehouse.apiKeys.update(apiKey.id, { name: name.trim() }));
  });
  return (
    <FormDialog titleId="rename-key-title" title={`Rename the key “${apiKey.name}”`} submission={rename} stepUp submitLabel="Save name" busyLabel="Saving…" onCancel={onCancel}>
      <Field label="New name" name="key-rename" required maxLength={100} value={name} onValue={setName} error={rename.error?.fields.name} hint="The secret stays the same." />
    </FormDialog>
  );
}
