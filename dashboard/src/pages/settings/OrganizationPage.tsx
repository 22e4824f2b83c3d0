import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { atLeast, gatehouse, ROLE_HINTS, type Organization } from '../../lib/api.ts';
import { formatDate, formatNumber } from '../../lib/format.ts';
import { useAction } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';
import { useSession } from '../../lib/session.tsx';

/** Settings → Organization: the one acted for now; rename (admins), delete (owners), leave. */
export function OrganizationPage() {
  const { current } = useOrganizations();
  if (!current) return <p role="status">Loading…</p>;
  return (
    <>
      <section class="card" aria-labelledby="org-title">
        <h2 id="org-title">{current.name}</h2>
        <dl class="facts">
          <div>
            <dt>Your role</dt>
            <dd>
              {current.role} <span class="hint">({ROLE_HINTS[current.role]})</span>
            </dd>
          </div>
          <div>
            <dt>Kind</dt>
            <dd>{current.personal ? 'Personal (yours alone unless you invite people)' : 'Shared'}</dd>
          </div>
          <div>
            <dt>Tier</dt>
            <dd>{current.tier}</dd>
          </div>
          <div>
            <dt>Limits (shared by every member and key)</dt>
            <dd>
              {formatNumber(current.limits.per_minute)} per minute, {formatNumber(current.limits.per_day)} per day, {current.limits.streams} live streams
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(current.created_at)}</dd>
          </div>
        </dl>
      </section>
      {atLeast(current.role, 'admin') && <RenameOrganization key={current.id} organization={current} />}
      {!current.personal && <LeaveOrganization organization={current} />}
      {!current.personal && current.role === 'owner' && <DeleteOrganization organization={current} />}
    </>
  );
}

function RenameOrganization({ organization }: { organization: Organization }) {
  const { reload } = useOrganizations();
  const [name, setName] = useState(organization.name);
  const [saved, setSaved] = useState(false);
  const { run, busy, error } = useAction(async () => {
    setSaved(false);
    await gatehouse.organizations.update(organization.id, { name: name.trim() });
    await reload();
    setSaved(true);
  });
  return (
    <section class="card" aria-labelledby="org-rename-title">
      <h2 id="org-rename-title">Rename</h2>
      {saved && <Notice>The organization is renamed.</Notice>}
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="org-rename-title" onSubmit={() => run()}>
        <Field label="Name" name="org-rename" required maxLength={100} value={name} onValue={setName} error={error?.fields.name} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Save name
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}

function LeaveOrganization({ organization }: { organization: Organization }) {
  const { me } = useSession();
  const { switchToPersonal } = useOrganizations();
  const [confirming, setConfirming] = useState(false);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.organizations.members.remove(organization.id, me!.id);
    setConfirming(false);
    await switchToPersonal();
  });
  return (
    <section class="card" aria-labelledby="org-leave-title">
      <h2 id="org-leave-title">Leave</h2>
      <p>You stop seeing its agents, chats and webhooks, and the API keys you created in it stop working.</p>
      <ErrorAlert error={error} />
      <div class="actions">
        <button type="button" class="button button-danger" onClick={() => setConfirming(true)}>
          Leave {organization.name}…
        </button>
      </div>
      <ConfirmDialog open={confirming} title={`Leave ${organization.name}?`} confirmLabel="Leave" busy={busy} onConfirm={() => void run()} onCancel={() => setConfirming(false)}>
        <p>To come back you need a new invitation. Your API keys in it are revoked.</p>
      </ConfirmDialog>
    </section>
  );
}

function DeleteOrganization({ organization }: { organization: Organization }) {
  const { switchToPersonal } = useOrganizations();
  const [confirming, setConfirming] = useState(false);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.organizations.delete(organization.id);
    setConfirming(false);
    await switchToPersonal();
  });
  return (
    <section class="card card-danger" aria-labelledby="org-delete-title">
      <h2 id="org-delete-title">Delete the organization</h2>
      <p>Deletes it for every member, with its agents, chats, webhooks and API keys. This cannot be undone.</p>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <div class="actions">
        <button type="button" class="button button-danger" onClick={() => setConfirming(true)}>
          Delete {organization.name}…
        </button>
      </div>
      <ConfirmDialog open={confirming} title={`Delete ${organization.name}?`} confirmLabel="Delete everything" busy={busy} onConfirm={() => void run()} onCancel={() => setConfirming(false)}>
        <p>Its agents, chats, webhooks and API keys go with it, for every member. There is no undo.</p>
      </ConfirmDialog>
    </section>
  );
}
