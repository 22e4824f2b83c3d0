import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { Link } from '../../components/Link.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useAction } from '../../lib/hooks.ts';
import { useSession } from '../../lib/session.tsx';
import { ChangeEmailCard } from './ChangeEmailCard.tsx';

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
      {/* A guest has no address to change (it upgrades from its app). */}
      {me.email !== null && <ChangeEmailCard current={me.email} />}
      <p class="aside">
        To download your data or delete the account, see <Link href="/settings/account">Account</Link>.
      </p>
    </>
  );
}
