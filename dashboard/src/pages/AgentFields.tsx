import { Field } from '../components/Field.tsx';

export interface AgentValues {
  name: string;
  model: string;
  description: string;
  instructions: string;
}

export const NO_AGENT_VALUES: AgentValues = { name: '', model: '', description: '', instructions: '' };

/**
 * An agent's fields, for the create form and the edit dialog alike. `idPrefix` keeps the two
 * forms' ids apart (both can be in the page at once).
 */
export function AgentFields({ idPrefix, values, onValues, errors = {} }: { idPrefix: string; values: AgentValues; onValues: (values: AgentValues) => void; errors?: Record<string, string> | undefined }) {
  const set = (field: keyof AgentValues) => (value: string) => onValues({ ...values, [field]: value });
  return (
    <>
      <div class="form-row">
        <Field label="Name" name={`${idPrefix}-name`} required maxLength={100} placeholder="Support bot" value={values.name} onValue={set('name')} error={errors.name} />
        <Field label="Model" name={`${idPrefix}-model`} required maxLength={100} placeholder="gpt-4o" hint="Letters, digits and . _ : / @ + -" value={values.model} onValue={set('model')} error={errors.model} />
      </div>
      <Field label="Description" name={`${idPrefix}-description`} maxLength={2000} value={values.description} onValue={set('description')} error={errors.description} />
      <Field label="Instructions" name={`${idPrefix}-instructions`} multiline maxLength={32768} hint="What the agent's runtime tells the model." value={values.instructions} onValue={set('instructions')} error={errors.instructions} />
    </>
  );
}
