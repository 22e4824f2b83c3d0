import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Icon } from '../components/Icon.tsx';
import { LoadMore } from '../components/LoadMore.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { Link } from '../components/Link.tsx';
import { gatehouse, type Agent } from '../lib/api.ts';
import { formatDate } from '../lib/format.ts';
import { usePagedList } from '../lib/hooks.ts';
import { useConfirm } from '../lib/use-confirm.ts';
import { AgentForm } from './AgentForm.tsx';
import { EditAgentDialog } from './EditAgentDialog.tsx';

export function AgentsPage() {
  const agents = usePagedList((cursor) => gatehouse.agents.list({ limit: 50, ...(cursor ? { cursor } : {}) }));
  const [message, setMessage] = useState<string | null>(null);
  const [editing, setEditing] = useState<Agent | null>(null);
  const remove = useConfirm(async (agent: Agent) => {
    await gatehouse.agents.delete(agent.id);
    setMessage(`The agent “${agent.name}” is deleted.`);
    await agents.reload();
  });
  return (
    <>
      <PageHeading title="Agents">The agents your runtimes answer for. Their conversations are under Chats.</PageHeading>
      <AgentForm
        onCreated={(agent) => {
          setMessage(`The agent “${agent.name}” is created.`);
          void agents.reload();
        }}
      />
      <section class="card" aria-labelledby="agents-title" aria-busy={agents.loading ? 'true' : undefined}>
        <h2 id="agents-title">Your agents</h2>
        {message && <Notice>{message}</Notice>}
        <ErrorAlert error={agents.error ?? remove.error} />
        {agents.loaded && (
          <DataTable<Agent>
            caption="Agents"
            rows={agents.rows}
            rowKey={(a) => a.id}
            empty={<EmptyState icon="agents" title="No agents yet.">Create one with the form above; its runtime then answers in its chats.</EmptyState>}
            columns={[
              { label: 'Name', wrap: true, render: (a) => <strong>{a.name}</strong> },
              { label: 'Model', render: (a) => <code>{a.model}</code> },
              { label: 'Description', wrap: true, render: (a) => <span class="clamp">{a.description || '—'}</span> },
              { label: 'Id', render: (a) => <code class="id">{a.id}</code> },
              { label: 'Created', render: (a) => formatDate(a.created_at) },
              {
                label: 'Actions',
                actions: true,
                render: (a) => (
                  <span class="row-actions">
                    <Link href={`/chats?agent=${encodeURIComponent(a.id)}`} class="button button-secondary button-small" aria-label={`Chats with ${a.name}`}>
                      <Icon name="chats" />
                      Chats
                    </Link>
                    <button type="button" class="button button-secondary button-small" onClick={() => setEditing(a)} aria-label={`Edit the agent ${a.name}`}>
                      <Icon name="edit" />
                      Edit
                    </button>
                    <button type="button" class="button button-danger button-small" onClick={() => remove.ask(a)} aria-label={`Delete the agent ${a.name}`}>
                      <Icon name="trash" />
                      Delete
                    </button>
                  </span>
                ),
              },
            ]}
          />
        )}
        <LoadMore list={agents} />
      </section>
      <EditAgentDialog
        agent={editing}
        onCancel={() => setEditing(null)}
        onSaved={(agent) => {
          setEditing(null);
          setMessage(`The agent “${agent.name}” is saved.`);
          void agents.reload();
        }}
      />
      <ConfirmDialog open={remove.target !== null} title="Delete this agent?" confirmLabel="Delete agent" busy={remove.busy} onConfirm={remove.confirm} onCancel={remove.cancel}>
        <p>“{remove.target?.name}” and all of its chats and messages are deleted. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
