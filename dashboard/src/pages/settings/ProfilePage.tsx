import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useAction } from '../../lib/hooks.ts';
import { useSession } from '../../lib/session.tsx';

function DeleteAccount() {
  const { logOut } = useSession();
  const [password, setPassword] = useState('');
  const [confirming, setConfirming] = useState(false);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.me.delete({ password });
    setConfirming(false);
    await logOut().catch(() => {});
  });
  return (
    <section class="card card-danger" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete the account</h2>
      <p>Deletes the account and everything it owns: agents, chats, API keys, webhooks. This cannot be undone.</p>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" onSubmit={() => setConfirming(true)}>
        <Field label="Your password" name="delete-password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={error?.fields.password} />
        <div class="actions">
          <SubmitButton busy={busy} variant="danger">
            Delete my account…
          </SubmitButton>
        </div>
      </ActionForm>
      <ConfirmDialog open={confirming} title="Delete your account?" confirmLabel="Delete everything" busy={busy} onConfirm={() => void run()} onCancel={() => setConfirming(false)}>
        <p>Your agents, chats, API keys and webhooks go with it. There is no undo.</p>
      </ConfirmDialog>
    </section>
  );
}

export function ProfilePage() {
  const { me, refreshMe } = useSession();
  const [name, setName] = useState(me?.name ?? '');
  const [saved, setSaved] = useState(false);
  const { run, busy, error } = useAction(async () => {
    setSaved(false);
    await gatehouse.me.update({ name: name.trim() });
    await refreshMe();
    setSaved(true);
  });
  if (!me) return null;
  return (
    <>
      <section class="card" aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <dl class="facts">
          <div>
            <dt>Email</dt>
            <dd>
              {me.email} {me.email_verified ? <span class="badge badge-ok">confirmed</span> : <span class="badge badge-warn">not confirmed</span>}
            </dd>
          </div>
          <div>
            <dt>Member since</dt>
            <dd>{formatDate(me.created_at)}</dd>
          </div>
          <div>
            <dt>Account id</dt>
            <dd>
              <code>{me.id}</code>
            </dd>
          </div>
        </dl>
        {saved && <Notice>Your name is saved.</Notice>}
        <ErrorAlert error={error} />
        <ActionForm class="form" onSubmit={() => run()}>
          <Field label="Name" name="name" autocomplete="name" required maxLength={100} value={name} onValue={setName} error={error?.fields.name} />
          <div class="actions">
            <SubmitButton busy={busy} busyLabel="Saving…">
              Save
            </SubmitButton>
          </div>
        </ActionForm>
      </section>
      <DeleteAccount />
    </>
  );
}
