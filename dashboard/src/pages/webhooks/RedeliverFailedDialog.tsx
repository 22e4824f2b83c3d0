import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Modal } from '../../components/Modal.tsx';
import { SelectField } from '../../components/SelectField.tsx';
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
  const redeliver = useAction(async () => {
    // A local time without a zone is read as local time; the server wants RFC 3339 (UTC here).
    const since = new Date(choice === CUSTOM ? local : Date.now() - Number(choice) * 1000).toISOString();
    const { redelivered } = await gatehouse.webhooks.redeliverFailed(endpointId, { since });
    onQueued({ redelivered, since });
  });
  const sinceError = redeliver.error?.fields.since;
  return (
    <FormDialog
      titleId="redeliver-failed-title"
      title="Redeliver failed deliveries"
      intro={
        <p class="dialog-body">
          Every delivery of this endpoint that was given up since the time you choose is sent again, with its original event and <code>webhook-id</code>, so
          a receiver that has one already can drop it. Events are kept 30 days.
        </p>
      }
      submission={redeliver}
      submitLabel="Redeliver failed deliveries"
      busyLabel="Queuing…"
      onCancel={onClose}
    >
      {/* The server's message about `since` goes beside the box the time came from. */}
      <SelectField label="Failed deliveries created" name="since-choice" value={choice} options={SINCE_CHOICES} onValue={setChoice} error={choice === CUSTOM ? undefined : sinceError} />
      {choice === CUSTOM && (
        <Field label="Since (your local time)" name="since" type="datetime-local" step="1" required value={local} onValue={setLocal} error={sinceError} hint="Not in the future, and at most 30 days back." />
      )}
    </FormDialog>
  );
}
