import { useState } from 'preact/hooks';
import { FormDialog } from '../components/FormDialog.tsx';
import { Modal } from '../components/Modal.tsx';
import { gatehouse, type Agent } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { AgentFields, type AgentValues } from './AgentFields.tsx';

interface Props {
  /** The agent being edited; null: the dialog is closed. */
  agent: Agent | null;
  onSaved: (agent: Agent) => void;
  onCancel: () => void;
}

/** Edits an agent's name, model, description and instructions (PATCH /v1/agents/{id}). */
export function EditAgentDialog({ agent, onSaved, onCancel }: Props) {
  return (
    <Modal open={agent !== null} labelledBy="edit-agent-title" onCancel={onCancel} initialFocus="#field-edit-agent-name" wide>
      {agent && <EditAgentForm key={agent.id} agent={agent} onSaved={onSaved} onCancel={onCancel} />}
    </Modal>
  );
}

function EditAgentForm({ agent, onSaved, onCancel }: Props & { agent: Agent }) {
  const [values, setValues] = useState<AgentValues>({ name: agent.name, model: agent.model, description: agent.description, instructions: agent.instructions });
  const save = useAction(async () => {
    // Only what changed: a concurrent edit of another field is not undone.
    const next = { name: values.name.trim(), model: values.model.trim(), description: values.description.trim(), instructions: values.instructions };
    const changed = Object.fromEntries(Object.entries(next).filter(([field, value]) => value !== agent[field as keyof AgentValues]));
    onSaved(Object.keys(changed).length ? await gatehouse.agents.update(agent.id, changed) : agent);
  });
  return (
    <FormDialog titleId="edit-agent-title" title={`Edit the agent “${agent.name}”`} submission={save} submitLabel="Save agent" busyLabel="Saving…" onCancel={onCancel}>
      <AgentFields idPrefix="edit-agent" values={values} onValues={setValues} errors={save.error?.fields} />
    </FormDialog>
  );
}
