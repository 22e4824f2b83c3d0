import { ActionForm } from '../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse, type Agent } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';

export function AgentForm({ onCreated }: { onCreated: (agent: Agent) => void }) {
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const { run, busy, error } = useAction(async () => {
    const agent = await gatehouse.agents.create({
      name: name.trim(),
      model: model.trim(),
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(instructions ? { instructions } : {}),
    });
    setName('');
    setModel('');
    setDescription('');
    setInstructions('');
    onCreated(agent);
  });
  return (
    <section class="card" aria-labelledby="new-agent-title">
      <h2 id="new-agent-title">Create an agent</h2>
      <ErrorAlert error={error} />
      <ActionForm class="form" aria-labelledby="new-agent-title" onSubmit={() => run()}>
        <div class="form-row">
          <Field label="Name" name="agent-name" required maxLength={100} placeholder="Support bot" value={name} onValue={setName} error={error?.fields.name} />
          <Field label="Model" name="model" required maxLength={100} placeholder="gpt-4o" hint="Letters, digits and . _ : / @ + -" value={model} onValue={setModel} error={error?.fields.model} />
        </div>
        <Field label="Description" name="description" maxLength={2000} value={description} onValue={setDescription} error={error?.fields.description} />
        <Field label="Instructions" name="instructions" multiline maxLength={32768} hint="What the agent's runtime tells the model." value={instructions} onValue={setInstructions} error={error?.fields.instructions} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Creating…">
            Create agent
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
