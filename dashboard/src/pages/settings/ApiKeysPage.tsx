import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { gatehouse, type ApiKey, type CreatedApiKey } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { isExpired } from '../../lib/key-limits.ts';
import { useConfirm } from '../../lib/use-confirm.ts';
import { ApiKeyForm } from './ApiKeyForm.tsx';
import { ApiKeyLimits, PreviousSecretNote } from './ApiKeyLimits.tsx';
import { RenameKeyDialog } from './RenameKeyDialog.tsx';
import { RollKeyDialog } from './RollKeyDialog.tsx';

export const keyPath = (key: ApiKey) => `/settings/api-keys/${encodeURIComponent(key.id)}`;

export function ApiKeysPage() {
  const keys = useResource(() => gatehouse.apiKeys.list({ limit: 100 }));
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<ApiKey | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const revoke = useConfirm(async (key: ApiKey) => {
    await gatehouse.apiKeys.revoke(key.id);
    setNotice(`The key “${key.name}” is revoked: requests with it fail from now on.`);
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
            setNotice(null);
            setCreated(key);
            void keys.reload();
          }}
        />
      )}
      <section class="card" aria-labelledby="keys-title" aria-busy={keys.loading ? 'true' : undefined}>
        <h2 id="keys-title">Your API keys</h2>
        {notice && <Notice>{notice}</Notice>}
        <ErrorAlert error={keys.error ?? revoke.error} />
        {keys.data && (
          <DataTable<ApiKey>
            caption="API keys"
            rows={keys.data.data}
            rowKey={(k) => k.id}
            empty={<EmptyState icon="key" title="No API keys yet.">Create one above for each program that calls the API, so you can revoke it alone.</EmptyState>}
            columns={[
              { label: 'Name', wrap: true, render: (k) => <Link href={keyPath(k)} aria-label={`${k.name}: usage and details`}><strong>{k.name}</strong></Link> },
              { label: 'Key', wrap: true, render: (k) => <span class="key-cell"><code class="key-prefix">{k.prefix}…{k.last_four}</code> <PreviousSecretNote apiKey={k} /></span> },
              { label: 'Scopes', wrap: true, render: (k) => <span class="scopes">{k.scopes.length === 7 ? 'all' : k.scopes.join(', ')}</span> },
              { label: 'Limits', wrap: true, render: (k) => <ApiKeyLimits apiKey={k} /> },
              { label: 'Created', render: (k) => formatDate(k.created_at) },
              { label: 'Last used', render: (k) => formatDateTime(k.last_used_at) },
              { label: 'Expires', render: (k) => (isExpired(k) ? <span class="badge badge-warn">expired {formatDate(k.expires_at)}</span> : formatDate(k.expires_at)) },
              {
                label: 'Actions',
                actions: true,
                render: (k) => (
                  <span class="row-actions">
                    <button type="button" class="button button-secondary button-small" onClick={() => setRenaming(k)} aria-label={`Rename the key ${k.name}`}>
                      <Icon name="edit" />
                      Rename
                    </button>
                    <button type="button" class="button button-secondary button-small" onClick={() => setRolling(k)} aria-label={`Roll the key ${k.name}`}>
                      <Icon name="refresh" />
                      Roll
                    </button>
                    <button type="button" class="button button-danger button-small" onClick={() => revoke.ask(k)} aria-label={`Revoke the key ${k.name}`}>
                      <Icon name="trash" />
                      Revoke
                    </button>
                  </span>
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
      <RenameKeyDialog
        apiKey={renaming}
        onCancel={() => setRenaming(null)}
        onRenamed={(key) => {
          setRenaming(null);
          setNotice(`The key is renamed “${key.name}”.`);
          void keys.reload();
        }}
      />
      <RollKeyDialog apiKey={rolling} onRolled={() => void keys.reload()} onClose={() => setRolling(null)} />
    </>
  );
}
