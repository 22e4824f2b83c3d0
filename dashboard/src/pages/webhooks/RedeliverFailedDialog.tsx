import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

const CUSTOM = 'custom';

/** Seconds back from now, or a time typed in. The server keeps events 30 days: older is refused. */
const SINCE_CHOICES = [
  { value: '3600', label: 'In the last hour' },
  { value: '86400', label: 'In the last 24 hours' },
  { value: '604800', label: 'In the last 7 days' },
  { value: CUSTOM, label: 'Since a time of your choosing' },
];

/** What the server answered, and from when: the list says it. */
export interface Redelivered {
  redelivered: number;
  since: string;
}

interface Props {
  open: boolean;
  endpointId: string;
  onQueued: (result: Redelivered) => void;
  onClose: () => void;
}

/** POST /v1/webhooks/{id}/redeliver: every failed delivery created since a time, sent again. */
export function RedeliverFailedDialog({ open, endpointId, onQueued, onClose }: Props) {
  return (
    <Modal open={open} labelledBy="redeliver-failed-title" onCancel={onClose} initialFocus="#field-since-choice" wide>
      {/* Mounted while open only, so each opening starts from the default choice. */}
      {open && <RedeliverFailedForm endpointId={endpointId} onQueued={onQueued} onClose={onClose} />}
    </Modal>
  );
}

function RedeliverFailedForm({ endpointId, onQueued, onClose }: Omit<Props, 'open'>) {
  const [choice, setChoice] = useState('86400');
  // datetime-local: the browser's local time, to the second (step 1), without a zone.
  const [local, setLocal] = useState('');
  const { run, busy, error } = useAction(async () => {
    // A local time without a zone is read as local time; the server wants RFC 3339 (UTC here).
    const since = new Date(choice === CUSTOM ? local : Date.now() - Number(choice) * 1000).toISOString();
    const { redelivered } = await gatehouse.webhooks.redeliverFailed(endpointId, { since });
    onQueued({ redelivered, since });
  });
  return (
    <>
      <h2 id="redeliver-failed-title">Redeliver failed deliveries</h2>
      <p class="dialog-body">
        Every delivery of this endpoint that was given up since the time you choose is sent again, with its original event and <code>webhook-id</code>, so a
        receiver that has one already can drop it. Events are kept 30 days.
      </p>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="redeliver-failed-title" onSubmit={() => run()}>
        <SelectField label="Failed deliveries created" name="since-choice" value={choice} options={SINCE_CHOICES} onValue={setChoice} error={choice === CUSTOM ? undefined : error?.fields.since} />
        {choice === CUSTOM && (
          <Field label="Since (your local time)" name="since" type="datetime-local" step="1" required value={local} onValue={setLocal} error={error?.fields.since} hint="Not in the future, and at most 30 days back." />
        )}
        <div class="actions">
          <button type="button" class="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <SubmitButton busy={busy} busyLabel="Queuing…">
            Redeliver failed deliveries
          </SubmitButton>
        </div>
      </ActionForm>
    </>
  );
}
