import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { LoadMore } from '../../components/LoadMore.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { gatehouse, type CreatedWebhookEndpoint, type WebhookEndpoint } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { usePagedList } from '../../lib/hooks.ts';
import { useConfirm } from '../../lib/use-confirm.ts';
import { endpointName, endpointPath, EndpointStatus } from './EndpointStatus.tsx';
import { WebhookForm } from './WebhookForm.tsx';

export function WebhooksPage() {
  const endpoints = usePagedList((cursor) => gatehouse.webhooks.list({ limit: 50, ...(cursor ? { cursor } : {}) }));
  const [created, setCreated] = useState<CreatedWebhookEndpoint | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const remove = useConfirm(async (endpoint: WebhookEndpoint) => {
    await gatehouse.webhooks.delete(endpoint.id);
    setMessage(`The endpoint ${endpoint.url} is deleted.`);
    if (created?.id === endpoint.id) setCreated(null);
    await endpoints.reload();
  });
  return (
    <>
      <PageHeading title="Webhooks">Where events of your account are delivered.</PageHeading>
      {created ? (
        <SecretOnce
          id="new-webhook-secret"
          title="Signing secret of the new endpoint"
          secret={created.secret}
          explanation="Verify the webhook-signature header with this secret. It is shown only now: copy it to your receiver's configuration."
          onDone={() => setCreated(null)}
        />
      ) : (
        <WebhookForm
          onCreated={(endpoint) => {
            setMessage(null);
            setCreated(endpoint);
            void endpoints.reload();
          }}
        />
      )}
      <section class="card" aria-labelledby="webhooks-title" aria-busy={endpoints.loading ? 'true' : undefined}>
        <h2 id="webhooks-title">Your endpoints</h2>
        {message && <Notice>{message}</Notice>}
        <ErrorAlert error={endpoints.error ?? remove.error} />
        {endpoints.loaded && (
          <DataTable<WebhookEndpoint>
            caption="Webhook endpoints"
            rows={endpoints.rows}
            rowKey={(w) => w.id}
            empty={<EmptyState icon="webhooks" title="No webhook endpoints yet.">Add one above to have events POSTed to your server as they happen.</EmptyState>}
            columns={[
              {
                label: 'URL',
                render: (w) => (
                  <Link href={endpointPath(w)} aria-label={`${w.url}: deliveries and details`}>
                    <code class="url">{w.url}</code>
                  </Link>
                ),
              },
              { label: 'Events', wrap: true, render: (w) => <span class="scopes">{w.events.join(', ')}</span> },
              { label: 'Status', render: (w) => <EndpointStatus endpoint={w} /> },
              { label: 'Description', wrap: true, render: (w) => w.description || '—' },
              { label: 'Created', render: (w) => formatDate(w.created_at) },
              {
                label: 'Actions',
                actions: true,
                render: (w) => (
                  <span class="row-actions">
                    <Link href={endpointPath(w)} class="button button-secondary button-small" aria-label={`Deliveries of ${endpointName(w)}`}>
                      <Icon name="send" />
                      Deliveries
                    </Link>
                    <button type="button" class="button button-danger button-small" onClick={() => remove.ask(w)} aria-label={`Delete the endpoint ${w.url}`}>
                      <Icon name="trash" />
                      Delete
                    </button>
                  </span>
                ),
              },
            ]}
          />
        )}
        <LoadMore list={endpoints} />
      </section>
      <ConfirmDialog open={remove.target !== null} title="Delete this endpoint?" confirmLabel="Delete endpoint" busy={remove.busy} onConfirm={remove.confirm} onCancel={remove.cancel}>
        <p>
          Events stop going to <code>{remove.target?.url}</code>, and its pending deliveries are dropped.
        </p>
      </ConfirmDialog>
    </>
  );
}
