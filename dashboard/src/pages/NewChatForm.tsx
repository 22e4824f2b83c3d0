import { useState } from 'preact/hooks';
import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field } from '../components/Field.tsx';
import { Icon } from '../components/Icon.tsx';
import { Link } from '../components/Link.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse, type Agent } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { navigate } from '../lib/router.ts';

/** Starts a chat with one of the account's agents, then opens it. */
export function NewChatForm({ agents, initialAgent }: { agents: Agent[]; initialAgent: string }) {
  const [agentId, setAgentId] = useState(agents.some((a) => a.id === initialAgent) ? initialAgent : '');
  const [title, setTitle] = useState('');
  const { run, busy, error } = useAction(async () => {
    const chat = await gatehouse.chats.create({ agent_id: agentId, ...(title.trim() ? { title: title.trim() } : {}) });
    navigate(`/chats/${encodeURIComponent(chat.id)}`);
  });
  return (
    <section class="card" aria-labelledby="new-chat-title">
      <h2 id="new-chat-title">Start a chat</h2>
      {agents.length === 0 ? (
        <EmptyState icon="agents" title="No agents yet.">
          A chat is with an agent: <Link href="/agents">create an agent</Link> first.
        </EmptyState>
      ) : (
        <>
          <ErrorAlert error={error} />
          <ActionForm class="form" aria-labelledby="new-chat-title" onSubmit={() => run()}>
            <div class="form-row">
              <SelectField
                label="Agent"
                name="chat-agent"
                required
                value={agentId}
                onValue={setAgentId}
                options={[{ value: '', label: 'Choose an agent' }, ...agents.map((a) => ({ value: a.id, label: a.name }))]}
                error={error?.fields.agent_id}
              />
              <Field label="Title" name="chat-title" maxLength={200} hint="Optional; you can rename the chat later." value={title} onValue={setTitle} error={error?.fields.title} />
            </div>
            <div class="actions">
              <SubmitButton busy={busy} busyLabel="Starting…">
                <Icon name="plus" />
                Start chat
              </SubmitButton>
            </div>
          </ActionForm>
        </>
      )}
    </section>
  );
}
