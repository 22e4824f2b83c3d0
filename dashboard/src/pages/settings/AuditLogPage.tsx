import { DataTable } from '../../components/DataTable.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { LoadMore } from '../../components/LoadMore.tsx';
import { atLeast, gatehouse, type AuditEvent, type Organization } from '../../lib/api.ts';
import { describeUserAgent, formatDateTime } from '../../lib/format.ts';
import { usePagedList, useResource } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';

/** Settings → Audit log (admins): who did what in the organization acted for, newest first. */
export function AuditLogPage() {
  const { current } = useOrganizations();
  if (!current) return <p role="status">Loading…</p>;
  if (!atLeast(current.role, 'admin')) {
    return (
      <section class="card">
        <h2>Audit log</h2>
        <p>Only admins and owners of {current.name} read its audit log; you are a {current.role}.</p>
      </section>
    );
  }
  return <AuditLog key={current.id} organization={current} />;
}

function AuditLog({ organization }: { organization: Organization }) {
  const log = usePagedList((cursor) => gatehouse.organizations.auditLog(organization.id, { cursor, limit: 50 }));
  // Members by id, to name the actors and targets (ids otherwise).
  const members = useResource(() => gatehouse.organizations.members.list(organization.id, { limit: 100 }));
  const nameOf = (id: string | null) => (id === null ? '' : members.data?.data.find((m) => m.user_id === id)?.email ?? id);
  return (
    <section class="card" aria-labelledby="audit-title" aria-busy={log.loading ? 'true' : undefined}>
      <h2 id="audit-title">Audit log of {organization.name}</h2>
      <ErrorAlert error={log.error} />
      {log.loaded && (
        <DataTable<AuditEvent>
          caption={`Audit log of ${organization.name}`}
          rows={log.rows}
          rowKey={(e) => e.id}
          empty={<EmptyState icon="log" title="Nothing recorded yet.">Invitations, role changes and other changes to the organization are listed here as they happen.</EmptyState>}
          columns={[
            { label: 'When', render: (e) => formatDateTime(e.created_at) },
            { label: 'Action', render: (e) => <code>{e.action}</code> },
            { label: 'By', wrap: true, render: (e) => <>{nameOf(e.actor.user_id)}{e.actor.key_id && <> (key <code>{e.actor.key_id}</code>)</>}</> },
            { label: 'Target', wrap: true, render: (e) => nameOf(e.target_id) },
            { label: 'Details', wrap: true, render: (e) => <span class="audit-detail">{Object.entries(e.detail).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')}</span> },
            { label: 'From', wrap: true, render: (e) => <span title={e.user_agent ?? undefined}>{e.ip ?? ''} {e.user_agent ? describeUserAgent(e.user_agent) : ''}</span> },
          ]}
        />
      )}
      <LoadMore list={log} />
    </section>
  );
}
