import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { gatehouse, scopeInWords, type ConnectedApp } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';
import { useConfirm } from '../../lib/use-confirm.ts';

/** What a grant's tokens are for, as a person reads it. */
const throughWhat = (resource: string) => (resource.endsWith('/v1/mcp') ? 'MCP server' : 'API');

/**
 * Settings → Connected apps: every app this person allowed to act for them (an MCP client, a
 * command-line tool, another service), with what it may do, for which organization, since when
 * and when it last got a token. Removing one ends its tokens at once, on every instance.
 */
export function ConnectedAppsPage() {
  const apps = useResource(() => gatehouse.oauth.connectedApps.list());
  const { organizations } = useOrganizations();
  const [notice, setNotice] = useState<string | null>(null);
  const organizationName = (id: string) => {
    const found = organizations?.find((o) => o.id === id);
    return found ? (found.personal ? 'Personal' : found.name) : 'an organization you left';
  };
  const revoke = useConfirm(async (app: ConnectedApp) => {
    await gatehouse.oauth.connectedApps.revoke(app.id);
    setNotice(`${app.client.name} can no longer act for you.`);
    await apps.reload();
  });
  return (
    <section class="card" aria-labelledby="connected-apps-title" aria-busy={apps.loading ? 'true' : undefined}>
      <h2 id="connected-apps-title">Connected apps</h2>
      <p class="hint">Apps you allowed to act for you. Removing one stops it at once; it would have to ask you again.</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorAlert error={apps.error ?? revoke.error} />
      {apps.data && (
        <DataTable<ConnectedApp>
          caption="Connected apps"
          rows={apps.data.data}
          rowKey={(a) => a.id}
          empty={<EmptyState icon="connected" title="No connected apps.">When you allow an app to act for you, it appears here.</EmptyState>}
          columns={[
            { label: 'App', wrap: true, render: (a) => <strong>{a.client.name}</strong> },
            {
              label: 'May',
              wrap: true,
              render: (a) => (
                <ul class="plain-list">
                  {a.scopes.map((s) => (
                    <li key={s}>{scopeInWords(s)}</li>
                  ))}
                </ul>
              ),
            },
            { label: 'Through', render: (a) => throughWhat(a.resource) },
            { label: 'For', wrap: true, render: (a) => organizationName(a.organization_id) },
            { label: 'Allowed', render: (a) => formatDate(a.created_at) },
            { label: 'Last used', render: (a) => formatDateTime(a.last_used_at) },
            {
              label: 'Actions',
              actions: true,
              render: (a) => (
                <button type="button" class="button button-danger button-small" onClick={() => revoke.ask(a)} aria-label={`Remove ${a.client.name}`}>
                  <Icon name="trash" />
                  Remove
                </button>
              ),
            },
          ]}
        />
      )}
      <ConfirmDialog open={revoke.target !== null} title="Remove this app?" confirmLabel="Remove app" busy={revoke.busy} onConfirm={revoke.confirm} onCancel={revoke.cancel}>
        <p>{revoke.target?.client.name} stops working for you at once, wherever it runs.</p>
      </ConfirmDialog>
    </section>
  );
}
