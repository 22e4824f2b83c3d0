import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { CheckboxGroup } from '../../components/CheckboxGroup.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse, SCOPES, type OauthApp } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';
import { useConfirm } from '../../lib/use-confirm.ts';

type Created = OauthApp & { client_secret?: string };

const SCOPE_OPTIONS = SCOPES.map((s) => ({ value: s, label: s }));
const TYPE_OPTIONS = [
  { value: 'public', label: 'Public: a mobile, desktop, browser or command-line app (no secret; PKCE)' },
  { value: 'confidential', label: 'Confidential: a server that keeps a secret' },
];

/**
 * Settings → OAuth apps (admins): the apps that may ask this organization's members to act for
 * them. A confidential app's secret is shown once, on registering and on rotating.
 */
export function OauthAppsPage() {
  const apps = useResource(() => gatehouse.oauth.apps.list());
  const { current } = useOrganizations();
  const [shown, setShown] = useState<{ title: string; app: Created } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useConfirm(async (app: OauthApp) => {
    await gatehouse.oauth.apps.remove(app.id);
    setNotice(`${app.name} is removed: every grant made to it has ended.`);
    await apps.reload();
  });
  const rotate = useConfirm(async (app: OauthApp) => {
    const rotated = await gatehouse.oauth.apps.rotateSecret(app.id);
    setNotice(null);
    setShown({ title: `A new secret for ${rotated.name}`, app: rotated });
  });
  return (
    <>
      {shown ? (
        <section class="card" aria-labelledby="oauth-app-shown-title">
          <h2 id="oauth-app-shown-title">{shown.app.name}</h2>
          <p>
            Client ID: <code>{shown.app.id}</code>
          </p>
          {shown.app.client_secret !== undefined && (
            <SecretOnce
              id="oauth-client-secret"
              title={shown.title}
              secret={shown.app.client_secret}
              explanation="Copy it now into the app's server configuration: this is the only time it is shown. The app authenticates to the token endpoint with its client ID and this secret."
              onDone={() => setShown(null)}
            />
          )}
          {shown.app.client_secret === undefined && (
            <div class="actions">
              <button type="button" class="button button-secondary" onClick={() => setShown(null)}>
                Done
              </button>
            </div>
          )}
        </section>
      ) : (
        <OauthAppForm
          onCreated={(app) => {
            setNotice(null);
            setShown({ title: `The secret of ${app.name}`, app });
            void apps.reload();
          }}
        />
      )}
      <section class="card" aria-labelledby="oauth-apps-title" aria-busy={apps.loading ? 'true' : undefined}>
        <h2 id="oauth-apps-title">OAuth apps of {current?.personal ? 'your personal organization' : current?.name}</h2>
        {notice && <Notice>{notice}</Notice>}
        <ErrorAlert error={apps.error ?? remove.error ?? rotate.error} onStepUp={rotate.target ? () => void rotate.confirm() : undefined} />
        {apps.data && (
          <DataTable<OauthApp>
            caption="OAuth apps"
            rows={apps.data.data}
            rowKey={(a) => a.id}
            empty={<EmptyState icon="apps" title="No OAuth apps yet.">Register one above for each app that should act for people who allow it.</EmptyState>}
            columns={[
              { label: 'Name', wrap: true, render: (a) => <strong>{a.name}</strong> },
              { label: 'Client ID', render: (a) => <code>{a.id}</code> },
              { label: 'Type', render: (a) => a.type },
              { label: 'Redirect URIs', wrap: true, render: (a) => <ul class="plain-list">{a.redirect_uris.map((u) => <li key={u}><code>{u}</code></li>)}</ul> },
              { label: 'Scopes', wrap: true, render: (a) => <span class="scopes">{a.scopes.join(', ')}</span> },
              { label: 'Registered', render: (a) => formatDate(a.created_at) },
              {
                label: 'Actions',
                actions: true,
                render: (a) => (
                  <span class="row-actions">
                    {a.type === 'confidential' && (
                      <button type="button" class="button button-secondary button-small" onClick={() => rotate.ask(a)} aria-label={`Rotate secret of ${a.name}`}>
                        <Icon name="refresh" />
                        Rotate secret
                      </button>
                    )}
                    <button type="button" class="button button-danger button-small" onClick={() => remove.ask(a)} aria-label={`Remove ${a.name}`}>
                      <Icon name="trash" />
                      Remove
                    </button>
                  </span>
                ),
              },
            ]}
          />
        )}
      </section>
      <ConfirmDialog open={remove.target !== null} title="Remove this app?" confirmLabel="Remove app" busy={remove.busy} onConfirm={remove.confirm} onCancel={remove.cancel}>
        <p>Everyone who allowed “{remove.target?.name}” loses its access at once, and it can ask no one again. This cannot be undone.</p>
      </ConfirmDialog>
      <ConfirmDialog open={rotate.target !== null && !rotate.error} title="Rotate the secret?" confirmLabel="Rotate secret" busy={rotate.busy} onConfirm={rotate.confirm} onCancel={rotate.cancel}>
        <p>“{rotate.target?.name}” stops working with its current secret at once: put the new one in its configuration straight away.</p>
      </ConfirmDialog>
    </>
  );
}

function OauthAppForm({ onCreated }: { onCreated: (app: Created) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'public' | 'confidential'>('public');
  const [redirects, setRedirects] = useState('');
  const [scopes, setScopes] = useState<string[]>(['agents:read', 'chats:read']);
  const { run, busy, error, setError } = useAction(async (): Promise<void> => {
    const redirectUris = redirects.split('\n').map((line) => line.trim()).filter(Boolean);
    if (redirectUris.length === 0) {
      setError({ message: 'Give at least one redirect URI.', fields: { redirect_uris: 'One per line.' }, requestId: null, code: null });
      return;
    }
    if (scopes.length === 0) {
      setError({ message: 'Choose at least one scope.', fields: { scopes: 'Choose at least one scope.' }, requestId: null, code: null });
      return;
    }
    const created = await gatehouse.oauth.apps.create({ name: name.trim(), type, redirect_uris: redirectUris, scopes: scopes as (typeof SCOPES)[number][] });
    setName('');
    setRedirects('');
    onCreated(created);
  });
  const redirectError = error?.fields.redirect_uris ?? Object.entries(error?.fields ?? {}).find(([field]) => field.startsWith('redirect_uris'))?.[1];
  return (
    <section class="card" aria-labelledby="new-oauth-app-title">
      <h2 id="new-oauth-app-title">Register an OAuth app</h2>
      <p class="hint">An app asks a person to allow it, on a consent page, and then acts for them with only the scopes below and never more than their role allows.</p>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="new-oauth-app-title" onSubmit={() => run()}>
        <Field label="Name" name="oauth-app-name" required maxLength={100} placeholder="Desk Assistant" hint="People see it on the consent page." value={name} onValue={setName} error={error?.fields.name} />
        <SelectField label="Type" name="oauth-app-type" value={type} options={TYPE_OPTIONS} onValue={(v) => setType(v as 'public' | 'confidential')} error={error?.fields.type} />
        <Field
          label="Redirect URIs"
          name="redirect_uris"
          multiline
          required
          value={redirects}
          onValue={setRedirects}
          hint="One per line, matched exactly: https, http on 127.0.0.1 or [::1] (any port, for native apps), or an app's own scheme (com.example.app:/callback)."
          error={redirectError}
        />
        <CheckboxGroup legend="Scopes it may ask for" name="oauth-scopes" options={SCOPE_OPTIONS} selected={scopes} onChange={setScopes} error={error?.fields.scopes} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Registering…">
            <Icon name="plus" />
            Register app
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
