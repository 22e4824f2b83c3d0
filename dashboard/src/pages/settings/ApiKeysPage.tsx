import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { gatehouse, type ApiKey, type CreatedApiKey } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { useConfirm } from '../../lib/use-confirm.ts';
import { ApiKeyForm } from './ApiKeyForm.tsx';

function isExpired(key: ApiKey): boolean {
  return key.expires_at !== null && new Date(key.expires_at).getTime() <= Date.now();
}

export function ApiKeysPage() {
  const keys = useResource(() => gatehouse.apiKeys.list({ limit: 100 }));
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const revoke = useConfirm(async (key: ApiKey) => {
    await gatehouse.apiKeys.revoke(key.id);
    setRevoked(key.name);
    if (created?.id === key.id) setCreated(null);
    await keys.reload();
  });

  return (
    <>
      {created ? (
        <SecretOnce
          id="new-api-key"
          title={`Your new key “${created.name}”`}
          secret={created.key}
          explanation="Copy it now and keep it somewhere safe: this is the only time it is shown. Send it as Authorization: Bearer <key>."
          onDone={() => setCreated(null)}
        />
      ) : (
        <ApiKeyForm
          onCreated={(key) => {
            setRevoked(null);
            setCreated(key);
            void keys.reload();
          }}
        />
      )}
      <section class="card" aria-labelledby="keys-title" aria-busy={keys.loading ? 'true' : undefined}>
        <h2 id="keys-title">Your API keys</h2>
        {revoked && <Notice>The key “{revoked}” is revoked: requests with it fail from now on.</Notice>}
        <ErrorAlert error={keys.error ?? revoke.error} />
        {keys.data && (
          <DataTable<ApiKey>
            caption="API keys"
            rows={keys.data.data}
            rowKey={(k) => k.id}
            empty="No API keys yet."
            columns={[
              { label: 'Name', render: (k) => <strong>{k.name}</strong> },
              { label: 'Key', render: (k) => <code class="key-prefix">{k.prefix}…{k.last_four}</code> },
              { label: 'Scopes', render: (k) => <span class="scopes">{k.scopes.length === 7 ? 'all' : k.scopes.join(', ')}</span> },
              { label: 'Created', render: (k) => formatDate(k.created_at) },
              { label: 'Last used', render: (k) => formatDateTime(k.last_used_at) },
              { label: 'Expires', render: (k) => (isExpired(k) ? <span class="badge badge-warn">expired {formatDate(k.expires_at)}</span> : formatDate(k.expires_at)) },
              {
                label: 'Actions',
                actions: true,
                render: (k) => (
                  <button type="button" class="button button-danger button-small" onClick={() => revoke.ask(k)} aria-label={`Revoke the key ${k.name}`}>
                    Revoke
                  </button>
                ),
              },
            ]}
          />
        )}
      </section>
      <ConfirmDialog open={revoke.target !== null} title="Revoke this API key?" confirmLabel="Revoke key" busy={revoke.busy} onConfirm={revoke.confirm} onCancel={revoke.cancel}>
        <p>
          Programs using “{revoke.target?.name}” (<code>{revoke.target?.prefix}…{revoke.target?.last_four}</code>) stop working at once. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
