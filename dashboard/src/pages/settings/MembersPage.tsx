import { useState } from 'preact/hooks';
import { collect } from '@gatehouse/sdk';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { atLeast, gatehouse, ROLE_HINTS, ROLES, type Invitation, type Member, type Organization, type OrganizationRole } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';
import { useConfirm } from '../../lib/use-confirm.ts';
import { useSession } from '../../lib/session.tsx';

/** The roles `actor` may give: owners give any, admins up to admin. */
const rolesFor = (actor: OrganizationRole) => ROLES.filter((r) => r !== 'owner' || actor === 'owner').map((r) => ({ value: r, label: `${r}: ${ROLE_HINTS[r]}` }));

/** Settings → Members: who is in the organization acted for; admins invite, change roles and remove. */
export function MembersPage() {
  const { current } = useOrganizations();
  if (!current) return <p role="status">Loading…</p>;
  return <Members key={current.id} organization={current} />;
}

function Members({ organization }: { organization: Organization }) {
  const { me } = useSession();
  const manages = atLeast(organization.role, 'admin');
  const members = useResource(() => collect((cursor) => gatehouse.organizations.members.list(organization.id, { cursor, limit: 100 })));
  const [notice, setNotice] = useState<string | null>(null);
  const [changing, setChanging] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const invitations = useResource(() => (manages ? collect((cursor) => gatehouse.organizations.invitations.list(organization.id, { cursor, limit: 100 })) : Promise.resolve([])));
  const withdraw = useConfirm(async (invitation: Invitation) => {
    await gatehouse.organizations.invitations.revoke(organization.id, invitation.id);
    setNotice(`The invitation to ${invitation.email} is withdrawn: its link no longer works.`);
    await invitations.reload();
  });

  return (
    <>
      <section class="card" aria-labelledby="members-title" aria-busy={members.loading ? 'true' : undefined}>
        <h2 id="members-title">Members of {organization.name}</h2>
        {notice && <Notice>{notice}</Notice>}
        <ErrorAlert error={members.error} />
        {members.data && (
          <DataTable<Member>
            caption={`Members of ${organization.name}`}
            rows={members.data}
            rowKey={(m) => m.user_id}
            empty={<EmptyState icon="members" title="No members.">Invite someone by email below.</EmptyState>}
            columns={[
              { label: 'Name', wrap: true, render: (m) => <><strong>{m.name}</strong> {m.user_id === me?.id && <span class="badge badge-ok">you</span>}</> },
              { label: 'Email', render: (m) => m.email },
              { label: 'Role', render: (m) => m.role },
              { label: 'Joined', render: (m) => formatDate(m.joined_at) },
              ...(manages
                ? [{
                    label: 'Actions',
                    actions: true,
                    render: (m: Member) => m.user_id === me?.id ? null : (
                      <span class="row-actions">
                        <button type="button" class="button button-secondary button-small" onClick={() => setChanging(m)} aria-label={`Change role of ${m.email}`}>
                          <Icon name="edit" />
                          Change role
                        </button>
                        <button type="button" class="button button-danger button-small" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                          <Icon name="trash" />
                          Remove
                        </button>
                      </span>
                    ),
                  }]
                : []),
            ]}
          />
        )}
        {!manages && <p class="hint">Admins and owners invite and manage members; you are a {organization.role}.</p>}
      </section>
      {manages && (
        <>
          {/* A personal organization takes no members (the server answers 409 conflict): teams do. */}
          {organization.personal
            ? <p class="hint">Your personal organization takes no members: create a team to invite people.</p>
            : <InviteForm organization={organization} onInvited={(email) => { setNotice(`An invitation is mailed to ${email}.`); void invitations.reload(); }} />}
          <section class="card" aria-labelledby="invitations-title" aria-busy={invitations.loading ? 'true' : undefined}>
            <h2 id="invitations-title">Pending invitations</h2>
            <ErrorAlert error={invitations.error ?? withdraw.error} />
            {invitations.data && (
              <DataTable<Invitation>
                caption="Pending invitations"
                rows={invitations.data}
                rowKey={(i) => i.id}
                empty={<EmptyState icon="mail" title="No pending invitations.">Invitations you send wait here until they are accepted.</EmptyState>}
                columns={[
                  { label: 'Email', render: (i) => i.email },
                  { label: 'Role', render: (i) => i.role },
                  { label: 'Sent', render: (i) => formatDate(i.created_at) },
                  { label: 'Expires', render: (i) => formatDate(i.expires_at) },
                  {
                    label: 'Actions',
                    actions: true,
                    render: (i) => (
                      <button type="button" class="button button-danger button-small" onClick={() => withdraw.ask(i)} aria-label={`Withdraw the invitation to ${i.email}`}>
                        Withdraw
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </section>
        </>
      )}
      <ConfirmDialog open={withdraw.target !== null} title="Withdraw this invitation?" confirmLabel="Withdraw" busy={withdraw.busy} onConfirm={withdraw.confirm} onCancel={withdraw.cancel}>
        <p>The link mailed to {withdraw.target?.email} stops working.</p>
      </ConfirmDialog>
      <Modal open={changing !== null} labelledBy="role-title" onCancel={() => setChanging(null)} initialFocus="#field-member-role">
        {changing && (
          <ChangeRoleForm key={changing.user_id} organization={organization} member={changing} onCancel={() => setChanging(null)}
            onChanged={(m) => { setChanging(null); setNotice(`${m.email} is now ${m.role === 'admin' || m.role === 'owner' ? 'an' : 'a'} ${m.role}.`); void members.reload(); }} />
        )}
      </Modal>
      <Modal open={removing !== null} labelledBy="remove-title" onCancel={() => setRemoving(null)} initialFocus=".dialog-cancel">
        {removing && (
          <RemoveMemberForm key={removing.user_id} organization={organization} member={removing} onCancel={() => setRemoving(null)}
            onRemoved={(m, kept) => { setRemoving(null); setNotice(`${m.email} is removed; their API keys are ${kept ? 'kept with the organization' : 'revoked'}.`); void members.reload(); }} />
        )}
      </Modal>
    </>
  );
}

function InviteForm({ organization, onInvited }: { organization: Organization; onInvited: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrganizationRole>('member');
  const { run, busy, error } = useAction(async () => {
    const invitation = await gatehouse.organizations.invitations.create(organization.id, { email: email.trim(), role });
    setEmail('');
    onInvited(invitation.email);
  });
  return (
    <section class="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <p class="hint">They get a link by mail; it works once, for 7 days, for an account with that (confirmed) address.</p>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" aria-labelledby="invite-title" onSubmit={() => run()}>
        <Field label="Email" name="invite-email" type="email" autocomplete="off" required maxLength={254} value={email} onValue={setEmail} error={error?.fields.email} />
        <SelectField label="Role" name="invite-role" value={role} options={rolesFor(organization.role)} onValue={(v) => setRole(v as OrganizationRole)} error={error?.fields.role} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Sending…">
            <Icon name="mail" />
            Send invitation
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}

interface MemberFormProps {
  organization: Organization;
  member: Member;
  onCancel: () => void;
}

function ChangeRoleForm({ organization, member, onCancel, onChanged }: MemberFormProps & { onChanged: (m: Member) => void }) {
  const [role, setRole] = useState<OrganizationRole>(member.role);
  const change = useAction(async () => onChanged(await gatehouse.organizations.members.update(organization.id, member.user_id, { role })));
  return (
    <FormDialog titleId="role-title" title={`Change the role of ${member.email}`} submission={change} stepUp submitLabel="Save role" busyLabel="Saving…" onCancel={onCancel}>
      <SelectField label="Role" name="member-role" value={role} options={rolesFor(organization.role)} onValue={(v) => setRole(v as OrganizationRole)} error={change.error?.fields.role} />
    </FormDialog>
  );
}

function RemoveMemberForm({ organization, member, onCancel, onRemoved }: MemberFormProps & { onRemoved: (m: Member, kept: boolean) => void }) {
  const [keys, setKeys] = useState<'revoke' | 'keep'>('revoke');
  const remove = useAction(async () => {
    await gatehouse.organizations.members.remove(organization.id, member.user_id, { apiKeys: keys });
    onRemoved(member, keys === 'keep');
  });
  return (
    <FormDialog titleId="remove-title" title={`Remove ${member.email}?`} submission={remove} stepUp submitLabel="Remove member" busyLabel="Removing…" variant="danger" onCancel={onCancel}>
      <fieldset class="choice">
        <legend>The API keys they created in {organization.name}</legend>
        <label>
          <input type="radio" name="member-keys" value="revoke" checked={keys === 'revoke'} onChange={() => setKeys('revoke')} /> Revoke their API keys (they stop working at once)
        </label>
        <label>
          <input type="radio" name="member-keys" value="keep" checked={keys === 'keep'} onChange={() => setKeys('keep')} /> Keep them with the organization (they go on working, handed to you)
        </label>
      </fieldset>
    </FormDialog>
  );
}
