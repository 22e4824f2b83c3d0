import { DataTable } from '../components/DataTable.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { LoadMore } from '../components/LoadMore.tsx';
import { gatehouse, type Chat } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { usePagedList } from '../lib/hooks.ts';

/** The account's chats (of one agent when `agentId` is set), newest first, each a link to its page. */
export function ChatList({ agentId, agentName }: { agentId: string; agentName: (id: string) => string }) {
  const chats = usePagedList((cursor) => gatehouse.chats.list({ limit: 50, ...(agentId ? { agent_id: agentId } : {}), ...(cursor ? { cursor } : {}) }));
  return (
    <div aria-busy={chats.loading ? 'true' : undefined}>
      <ErrorAlert error={chats.error} />
      {chats.loaded && (
        <DataTable<Chat>
          caption="Chats"
          rows={chats.rows}
          rowKey={(c) => c.id}
          empty={<EmptyState icon="chats" title={agentId ? 'No chats with this agent yet.' : 'No chats yet.'}>Start one with the form above.</EmptyState>}
          columns={[
            {
              label: 'Title',
              wrap: true,
              render: (c) => (
                <Link href={`/chats/${encodeURIComponent(c.id)}`} class={c.title ? undefined : 'untitled'}>
                  {c.title ?? 'Untitled'}
                </Link>
              ),
            },
            { label: 'Agent', wrap: true, render: (c) => agentName(c.agent_id) },
            { label: 'Updated', render: (c) => formatDateTime(c.updated_at) },
            { label: 'Started', render: (c) => formatDateTime(c.created_at) },
          ]}
        />
      )}
      <LoadMore list={chats} />
    </div>
  );
}
