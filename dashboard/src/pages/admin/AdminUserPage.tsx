import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Facts } from '../../components/Facts.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Link } from '../../components/Link.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { SecurityEventLog } from '../../components/SecurityEventLog.tsx';
import { gatehouse } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { useSession } from '../../lib/session.tsx';
import { useConfirm } from '../../lib/use-confirm.ts';
import { AccountStatus } from './AccountStatus.tsx';
import { limitsText, TIER_OPTIONS, type AdminUser, type AdminUserDetail } from './plan.ts';
import { PlanForm } from './PlanForm.tsx';
import { UserOrganizations } from './UserOrganizations.tsx';

function UserFacts({ user: u }: { user: AdminUserDetail }) {
  return (
    <Facts
      items={[
        ['Email', u.email],
        ['Name', u.name || '—'],
        ['Status', <AccountStatus user={u} />],
        ['Email confirmed', u.email_verified ? 'yes' : 'no'],
        ['Tier', TIER_OPTIONS.find((t) => t.value === u.tier)?.label ?? u.tier],
        ['Limits', limitsText(u)],
        ['Signed up', formatDateTime(u.created_at)],
        ['Changed', formatDateTime(u.updated_at)],
        ['Id', <code>{u.id}</code>],
      ]}
    />
  );
}

/** `/admin/users/<id>`: one user's facts and organizations, their tier and limits, disable and enable, their security log. */
export function AdminUserPage({ id }: { id: string }) {
  const { me } = useSession();
  const user = useResource(() => gatehouse.admin.getUser(id), [id]);
  const [notice, setNotice] = useState<string | null>(null);
  // Bumped after each change: the security log reads itself again and shows the change.
  const [changes, setChanges] = useState(0);
  const changed = (updated: AdminUser, message: string) => {
    if (user.data) user.setData({ ...user.data, ...updated });
    setNotice(message);
    setChanges((n) => n + 1);
  };
  const status = useConfirm(async (disabled: boolean) => {
    const updated = await gatehouse.admin.updateUser(id, { disabled });
    changed(
      updated,
      disabled
        ? `${updated.email} is disabled: their sessions are signed out, and their tokens and API keys are refused until you enable the account again.`
        : `${updated.email} is enabled: they can sign in again (their earlier sessions stay signed out).`,
    );
  });
  const u = user.data;
  const yourself = u !== null && u.id === me?.id;
  return (
    <>
      <PageHeading title={u ? `Admin: ${u.email}` : 'Admin: user'} />
      <Link href="/admin" class="back-link">
        <Icon name="back" />
        All users
      </Link>
      <ErrorAlert error={user.error} />
      {u && (
        <>
          <section class="card" aria-labelledby="user-title">
            <div class="card-head card-head-wrap">
              <h2 id="user-title">Account</h2>
              {!yourself && (
                <div class="actions">
                  {u.disabled ? (
                    <button type="button" class="button button-primary button-small" onClick={() => status.ask(false)}>
                      <Icon name="power" />
                      Enable
                    </button>
                  ) : (
                    <button type="button" class="button button-danger button-small" onClick={() => status.ask(true)}>
                      <Icon name="power" />
                      Disable
                    </button>
                  )}
                </div>
              )}
            </div>
            {notice && <Notice>{notice}</Notice>}
            {yourself && <p class="hint">This is your own account: another admin can disable it, not you.</p>}
            <UserFacts user={u} />
          </section>
          <UserOrganizations organizations={u.organizations} />
          <PlanForm id="user-plan" plan={u} save={(body) => gatehouse.admin.updateUser(id, body)} onSaved={(updated) => changed(updated, `Saved: ${updated.email} is on the ${updated.tier} tier, ${limitsText(updated)}.`)}>
            Of {u.name || u.email}’s personal organization: what their own account and its keys spend from. Shared organizations have their own (open one above).
          </PlanForm>
          <SecurityEventLog
            key={changes}
            id="user-security-log"
            title="Security log"
            hint={`What happened to ${u.email}, newest first, as they see it in their own Settings → Security log; your changes here are recorded too.`}
            emptyNext="Sign-ins and changes to this account are listed here as they happen."
            load={(query) => gatehouse.admin.userSecurityEvents(id, query)}
          />
          <ConfirmDialog
            open={status.target !== null}
            title={status.target ? `Disable ${u.email}?` : `Enable ${u.email}?`}
            confirmLabel={status.target ? 'Disable account' : 'Enable account'}
            busy={status.busy}
            onConfirm={status.confirm}
            onCancel={status.cancel}
          >
            {status.target ? (
              <p>They are signed out everywhere at once, their API keys and live streams stop working, and they cannot sign in until you enable the account again.</p>
            ) : (
              <p>They can sign in again and their API keys work again. Sessions that were signed out when you disabled the account stay signed out.</p>
            )}
            <ErrorAlert error={status.error} onStepUp={status.confirm} />
          </ConfirmDialog>
        </>
      )}
    </>
  );
}
