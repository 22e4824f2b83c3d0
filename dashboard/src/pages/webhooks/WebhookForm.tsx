import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { CheckboxGroup } from '../../components/CheckboxGroup.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import type { RequestBody } from '@gatehouse/sdk';
import { gatehouse, type CreatedWebhookEndpoint } from '../../lib/api.ts';

type EventPattern = RequestBody<'createWebhook'>['events'][number];
import { useAction } from '../../lib/hooks.ts';

/** The events one subscribes to most; `group.*` patterns are accepted too (docs/guides/webhooks.md). */
const EVENT_OPTIONS: { value: EventPattern; label: string }[] = [
  { value: 'chat.message.created', label: 'chat.message.created' },
  { value: 'agent.*', label: 'agent.* (created, updated, deleted)' },
  { value: 'chat.*', label: 'chat.* (chats and messages)' },
  { value: 'api_key.*', label: 'api_key.* (created, revoked)' },
  { value: 'session.revoked', label: 'session.revoked' },
  { value: 'security.refresh_token_reused', label: 'security.refresh_token_reused' },
  { value: 'user.updated', label: 'user.updated' },
  { value: 'webhook.test', label: 'webhook.test' },
];

export function WebhookForm({ onCreated }: { onCreated: (endpoint: CreatedWebhookEndpoint) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventPattern[]>(['chat.message.created']);
  const [description, setDescription] = useState('');
  const { run, busy, error, setError } = useAction(async () => {
    if (events.length === 0) {
      setError({ message: 'Choose at least one event.', fields: { events: 'Choose at least one event.' }, requestId: null, code: null });
      return;
    }
    const created = await gatehouse.webhooks.create({ url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) });
    setUrl('');
    setDescription('');
    onCreated(created);
  });
  return (
    <section class="card" aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">Add a webhook endpoint</h2>
      <p class="hint">Events are POSTed to your URL, signed as Standard Webhooks, and retried with backoff until your endpoint answers 2xx.</p>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="new-webhook-title" onSubmit={() => run()}>
        <Field label="URL" name="url" type="url" required maxLength={2048} placeholder="https://example.com/hooks/gatehouse" hint="An https URL on a public address." value={url} onValue={setUrl} error={error?.fields.url} />
        <CheckboxGroup legend="Events" name="events" options={EVENT_OPTIONS} selected={events} onChange={(selected) => setEvents(selected as EventPattern[])} error={error?.fields.events} />
        <Field label="Description" name="webhook-description" maxLength={500} value={description} onValue={setDescription} error={error?.fields.description} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Adding…">
            <Icon name="plus" />
            Add endpoint
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
