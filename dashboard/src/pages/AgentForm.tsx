import { ActionForm } from '../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Icon } from '../components/Icon.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse, type Agent } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { AgentFields, NO_AGENT_VALUES } from './AgentFields.tsx';

export function AgentForm({ onCreated }: { onCreated: (agent: Agent) => void }) {
  const [values, setValues] = useState(NO_AGENT_VALUES);
  const { run, busy, error } = useAction(async () => {
    const description = values.description.trim();
    const agent = await gatehouse.agents.create({
      name: values.name.trim(),
      model: values.model.trim(),
      ...(description ? { description } : {}),
      ...(values.instructions ? { instructions: values.instructions } : {}),
    });
    setValues(NO_AGENT_VALUES);
    onCreated(agent);
  });
  return (
    <section class="card" aria-labelledby="new-agent-title">
      <h2 id="new-agent-title">Create an agent</h2>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="new-agent-title" onSubmit={() => run()}>
        <AgentFields idPrefix="agent" values={values} onValues={setValues} errors={error?.fields} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Creating…">
            <Icon name="plus" />
            Create agent
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
