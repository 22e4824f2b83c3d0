import { useEffect, useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Notice } from '../../components/Notice.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { goToProvider } from '../../lib/provider-sign-in.ts';
import { forgetQuery } from '../../lib/router.ts';
import { useConfirm } from '../../lib/use-confirm.ts';

type Identity = Awaited<ReturnType<typeof gatehouse.me.identities.list>>['data'][number];

/** Settings → Security: the sign-in providers linked to the account; link another, unlink one. */
export function LinkedProvidersCard() {
  // The callback page comes back here with `?linked=<provider name>` after a link.
  const [linked] = useState(() => new URLSearchParams(window.location.search).get('linked'));
  useEffect(() => {
    if (linked) forgetQuery();
  }, []);
  const providers = useResource(() => gatehouse.auth.providers());
  const identities = useResource(() => gatehouse.me.identities.list());
  const [notice, setNotice] = useState<string | null>(linked ? `${linked} is linked: you can sign in with it from now on.` : null);
  const link = useAction((provider: { id: string; name: string }) => goToProvider(provider, 'link', '/settings/security'));
  const unlink = useConfirm(async (identity: Identity) => {
    await gatehouse.me.identities.unlink(identity.id);
    setNotice(`${identity.provider_name} is unlinked.`);
    await identities.reload();
  });
  // Linking goes through the browser flow: a provider for native apps alone cannot be linked here.
  const available = (providers.data?.data ?? []).filter((provider) => provider.web);
  // Nothing to show on a server without providers, unless something is still linked.
  if (available.length === 0 && !identities.data?.data.length) return null;
  const linkedIds = new Set(identities.data?.data.map((i) => i.provider));
  const linkable = available.filter((p) => !linkedIds.has(p.id));
  return (
    <section class="card" aria-labelledby="providers-title" aria-busy={identities.loading ? 'true' : undefined}>
      <h2 id="providers-title">Linked accounts</h2>
      <p>Sign in with another account you already have, instead of your password.</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorAlert error={identities.error ?? providers.error} />
      {identities.data && (
        <DataTable<Identity>
          caption="Linked accounts"
          rows={identities.data.data}
          rowKey={(i) => i.id}
          empty={<EmptyState icon="profile" title="No linked accounts yet.">A provider you link becomes another way to sign in.</EmptyState>}
          columns={[
            { label: 'Provider', wrap: true, render: (i) => <strong>{i.provider_name}</strong> },
            { label: 'Email there', render: (i) => <span class="long-text">{i.email ?? '—'}</span> },
            { label: 'Linked', render: (i) => formatDate(i.created_at) },
            { label: 'Last used', render: (i) => formatDateTime(i.last_used_at) },
            {
              label: 'Actions',
              actions: true,
              render: (i) => (
                <button type="button" class="button button-danger button-small" onClick={() => unlink.ask(i)} aria-label={`Unlink ${i.provider_name}`}>
                  Unlink
                </button>
              ),
            },
          ]}
        />
      )}
      <ErrorAlert error={link.error} />
      {linkable.length > 0 && (
        <p class="actions">
          {linkable.map((provider) => (
            <button key={provider.id} type="button" class="button button-secondary" onClick={() => void link.run(provider)}>
              Link {provider.name}
            </button>
          ))}
        </p>
      )}
      <ConfirmDialog open={unlink.target !== null} title={`Unlink ${unlink.target?.provider_name ?? ''}?`} confirmLabel="Unlink" busy={unlink.busy} onConfirm={unlink.confirm} onCancel={unlink.cancel}>
        <p>You will no longer be able to sign in with it. An account's last way in cannot be unlinked.</p>
        <ErrorAlert error={unlink.error} onStepUp={unlink.confirm} />
      </ConfirmDialog>
    </section>
  );
}
