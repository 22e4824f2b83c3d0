import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
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
  return (
    <section class="card" aria-labelledby="sessions-title" aria-busy={sessions.loading ? 'true' : undefined}>
      <h2 id="sessions-title">Sessions</h2>
      <p class="hint">Everywhere your account is signed in. Revoking a session signs it out at once.</p>
      <ErrorAlert error={sessions.error ?? revoke.error} />
      {sessions.data && (
        <DataTable<Session>
          caption="Active sessions"
          rows={sessions.data.data}
          rowKey={(s) => s.id}
          empty="No active sessions."
          columns={[
            {
              label: 'Device',
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
                <button type="button" class="button button-danger button-small" onClick={() => revoke.ask(s)} aria-label={`Revoke session: ${describeUserAgent(s.user_agent)}${s.current ? ' (this session)' : ''}, signed in ${formatDateTime(s.created_at)}`}>
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
    </section>
  );
}
