import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { createPasskey, isCancelled, passkeysSupported } from '../../lib/passkeys.ts';
import { useConfirm } from '../../lib/use-confirm.ts';

type Passkey = Awaited<ReturnType<typeof gatehouse.me.passkeys.list>>['data'][number];

/** Settings → Security: the account's passkeys (sign in without a password), add and remove. */
export function PasskeysCard() {
  const passkeys = useResource(() => gatehouse.me.passkeys.list());
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const add = useAction(async () => {
    setNotice(null);
    const { challenge_id, options } = await gatehouse.me.passkeys.registrationOptions({ password });
    setPassword('');
    let credential;
    try {
      credential = await createPasskey(options);
    } catch (error) {
      if (isCancelled(error)) return; // the user closed the browser's dialog
      throw error;
    }
    const added = await gatehouse.me.passkeys.add({ challenge_id, credential, name: name.trim() || 'Passkey' });
    setName('');
    setNotice(`The passkey “${added.name}” is added: you can sign in with it instead of your password.`);
    await passkeys.reload();
  });
  const remove = useConfirm(async (passkey: Passkey) => {
    await gatehouse.me.passkeys.remove(passkey.id);
    setNotice(`The passkey “${passkey.name}” is removed.`);
    await passkeys.reload();
  });

  return (
    <section class="card" aria-labelledby="passkeys-title" aria-busy={passkeys.loading ? 'true' : undefined}>
      <h2 id="passkeys-title">Passkeys</h2>
      <p>A passkey signs you in with your device's screen lock or security key, without a password, and cannot be phished.</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorAlert error={passkeys.error} />
      {passkeys.data && (
        <DataTable<Passkey>
          caption="Passkeys"
          rows={passkeys.data.data}
          rowKey={(p) => p.id}
          empty={<EmptyState icon="key" title="No passkeys yet.">Add one below to sign in without a password.</EmptyState>}
          columns={[
            { label: 'Name', wrap: true, render: (p) => <strong>{p.name}</strong> },
            { label: 'Synced', render: (p) => (p.backed_up ? 'yes' : 'no') },
            { label: 'Added', render: (p) => formatDate(p.created_at) },
            { label: 'Last used', render: (p) => formatDateTime(p.last_used_at) },
            {
              label: 'Actions',
              actions: true,
              render: (p) => (
                <button type="button" class="button button-danger button-small" onClick={() => remove.ask(p)} aria-label={`Remove the passkey ${p.name}`}>
                  <Icon name="trash" />
                  Remove
                </button>
              ),
            },
          ]}
        />
      )}
      {passkeysSupported() ? (
        <>
          <ErrorAlert error={add.error} onStepUp={() => void add.run()} />
          <ActionForm class="form" onSubmit={() => add.run()}>
            <Field label="Passkey name" name="passkey_name" maxLength={100} value={name} onValue={setName} hint="Where it lives, e.g. “MacBook” or “YubiKey”." />
            <Field label="Your password" name="passkey_password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={add.error?.fields.password} />
            <div class="actions">
              <SubmitButton busy={add.busy} busyLabel="Waiting for your device…">
                Add a passkey
              </SubmitButton>
            </div>
          </ActionForm>
        </>
      ) : (
        <p class="hint">This browser cannot create passkeys.</p>
      )}
      <ConfirmDialog open={remove.target !== null} title="Remove this passkey?" confirmLabel="Remove passkey" busy={remove.busy} onConfirm={remove.confirm} onCancel={remove.cancel}>
        <p>“{remove.target?.name}” will no longer sign you in. Remove it from the device too.</p>
        {/* Inside the dialog: a modal dialog keeps the focus, so a code form behind it could not be reached. */}
        <ErrorAlert error={remove.error} onStepUp={remove.confirm} />
      </ConfirmDialog>
    </section>
  );
}
