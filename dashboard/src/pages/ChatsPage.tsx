import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { navigate } from '../lib/router.ts';
import { useAgents } from '../lib/use-agents.ts';
import { ChatList } from './ChatList.tsx';
import { NewChatForm } from './NewChatForm.tsx';

/** `/chats` (`?agent=<id>` shows one agent's chats): start a chat, and the list of chats. */
export function ChatsPage({ query }: { query: URLSearchParams }) {
  const agentId = query.get('agent') ?? '';
  const agents = useAgents();
  return (
    <>
      <PageHeading title="Chats">Conversations with your agents. Open one to follow it live as the agent replies.</PageHeading>
      <ErrorAlert error={agents.error} />
      {agents.loaded && <NewChatForm agents={agents.list} initialAgent={agentId} />}
      <section class="card" aria-labelledby="chats-title">
        <div class="card-head card-head-wrap">
          <h2 id="chats-title">Your chats</h2>
          {agents.list.length > 0 && (
            <div class="filter">
              <SelectField
                label="Show chats with"
                name="chat-filter"
                value={agentId}
                onValue={(id) => navigate(id ? `/chats?agent=${encodeURIComponent(id)}` : '/chats', { replace: true })}
                options={[{ value: '', label: 'All agents' }, ...agents.list.map((a) => ({ value: a.id, label: a.name }))]}
              />
            </div>
          )}
        </div>
        {/* After the agents (their names), or without them when they could not be read. */}
        {(agents.loaded || agents.error) && <ChatList key={agentId} agentId={agentId} agentName={agents.nameOf} />}
      </section>
    </>
  );
}
