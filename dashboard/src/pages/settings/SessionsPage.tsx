import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Notice } from '../../components/Notice.tsx';
import { gatehouse, type Session } from '../../lib/api.ts';
import { describeUserAgent, formatDateTime } from '../../lib/format.ts';
import { useResource } from '../../lib/hooks.ts';
import { useConfirm } from '../../lib/use-confirm.ts';
import { useSession } from '../../lib/session.tsx';

export function SessionsPage() {
  const { logOut } = useSession();
  const sessions = useResource(() => gatehouse.sessions.list({ limit: 100 }));
  const revoke = useConfirm(async (session: Session) => {
    if (session.current) return logOut();
    await gatehouse.sessions.revoke(session.id);
    await sessions.reload();
  });
  const [notice, setNotice] = useState<string | null>(null);
  // One call (`logout` with scope `others`) rather than a revoke per row: it also ends sessions
  // started after the list was read, and keeps this one.
  const signOutOthers = useConfirm(async (count: number) => {
    setNotice(null);
    await gatehouse.auth.logout({ scope: 'others' });
    await sessions.reload();
    setNotice(count === 1 ? 'The other session is signed out.' : `The ${count} other sessions are signed out.`);
  });
  const others = sessions.data?.data.filter((s) => !s.current).length ?? 0;
  return (
    <section class="card" aria-labelledby="sessions-title" aria-busy={sessions.loading ? 'true' : undefined}>
      <h2 id="sessions-title">Sessions</h2>
      <p class="hint">Everywhere your account is signed in. Revoking a session signs it out at once.</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorAlert error={sessions.error ?? revoke.error} />
      {others > 0 && (
        <p class="actions">
          <button type="button" class="button button-danger" onClick={() => signOutOthers.ask(others)}>
            <Icon name="logout" />
            Sign out everywhere else
          </button>
        </p>
      )}
      {sessions.data && (
        <DataTable<Session>
          caption="Active sessions"
          rows={sessions.data.data}
          rowKey={(s) => s.id}
          empty={<EmptyState icon="sessions" title="No active sessions.">Each place you sign in appears here.</EmptyState>}
          columns={[
            {
              label: 'Device',
              wrap: true,
              render: (s) => (
                <>
                  <span title={s.user_agent ?? undefined}>{describeUserAgent(s.user_agent)}</span> {s.current && <span class="badge badge-ok">this session</span>}
                </>
              ),
            },
            { label: 'IP address', render: (s) => s.ip ?? 'unknown' },
            { label: 'Signed in', render: (s) => formatDateTime(s.created_at) },
            { label: 'Last active', render: (s) => formatDateTime(s.last_used_at) },
            {
              label: 'Actions',
              actions: true,
              render: (s) => (
                <button type="button" class="button button-danger button-small" onClick={() => revoke.ask(s)} aria-label={`${s.current ? 'Log out of this session' : 'Revoke session'}: ${describeUserAgent(s.user_agent)}, signed in ${formatDateTime(s.created_at)}`}>
                  {s.current ? 'Log out' : 'Revoke'}
                </button>
              ),
            },
          ]}
        />
      )}
      <ConfirmDialog
        open={revoke.target !== null}
        title={revoke.target?.current ? 'Log out of this session?' : 'Revoke this session?'}
        confirmLabel={revoke.target?.current ? 'Log out' : 'Revoke session'}
        busy={revoke.busy}
        onConfirm={revoke.confirm}
        onCancel={revoke.cancel}
      >
        <p>
          {revoke.target && describeUserAgent(revoke.target.user_agent)}
          {revoke.target?.ip ? ` from ${revoke.target.ip}` : ''} will be signed out at once.
        </p>
      </ConfirmDialog>
      {/* A Modal of its own rather than a second ConfirmDialog: each ConfirmDialog titles itself `confirm-title`, and the page's first one would name both. */}
      <Modal open={signOutOthers.target !== null} labelledBy="sign-out-others-title" onCancel={signOutOthers.cancel} initialFocus=".dialog-cancel">
        <h2 id="sign-out-others-title">Sign out everywhere else?</h2>
        <div class="dialog-body">
          <p>
            Every session but this one is signed out at once ({signOutOthers.target === 1 ? 'one other session' : `${signOutOthers.target ?? 0} other sessions`}): other browsers, devices and
            programs signed in to your account. API keys keep working; revoke them under API keys.
          </p>
          <ErrorAlert error={signOutOthers.error} />
        </div>
        <div class="actions">
          <button type="button" class="button button-secondary dialog-cancel" onClick={signOutOthers.cancel}>
            Cancel
          </button>
          <button type="button" class="button button-danger" aria-disabled={signOutOthers.busy ? 'true' : undefined} onClick={() => !signOutOthers.busy && signOutOthers.confirm()}>
            {signOutOthers.busy ? 'Signing out…' : 'Sign out other sessions'}
          </button>
        </div>
      </Modal>
    </section>
  );
}
