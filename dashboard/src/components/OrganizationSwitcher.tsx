import { useState } from 'preact/hooks';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { useOrganizations } from '../lib/organizations.tsx';
import { Field } from './Field.tsx';
import { FormDialog } from './FormDialog.tsx';
import { Icon } from './Icon.tsx';
import { Modal } from './Modal.tsx';

/**
 * In the header: the organization the dashboard acts for (a native <select>: keyboard, screen
 * readers and phones know it), the personal one first; choosing one switches at once and the
 * page reloads its data. "New" creates one and switches to it.
 */
export function OrganizationSwitcher() {
  const { organizations, current, switchTo } = useOrganizations();
  const [creating, setCreating] = useState(false);
  const change = useAction((id: string) => switchTo(id));
  if (!organizations || !current) return null;
  return (
    <div class="org-switcher">
      <label for="org-switcher" class="visually-hidden">
        Organization
      </label>
      {/* `selected` on the options, not `value` on the select: an organization just created or joined
          arrives with its option in the same render, and a value set before its option exists is lost. */}
      <select id="org-switcher" aria-describedby={change.error ? 'org-switcher-error' : undefined} onChange={(e) => void change.run((e.currentTarget as HTMLSelectElement).value)}>
        {organizations.map((o) => (
          <option key={o.id} value={o.id} selected={o.id === current.id}>
            {o.personal ? `${o.name} (personal)` : o.name}
          </option>
        ))}
      </select>
      <button type="button" class="button button-secondary button-small" onClick={() => setCreating(true)}>
        <Icon name="plus" />
        New<span class="visually-hidden"> organization</span>
      </button>
      {change.error && (
        <span id="org-switcher-error" class="visually-hidden" role="alert">
          {change.error.message}
        </span>
      )}
      <Modal open={creating} labelledBy="new-org-title" onCancel={() => setCreating(false)} initialFocus="#field-org-name">
        {creating && <NewOrganizationForm onDone={() => setCreating(false)} />}
      </Modal>
    </div>
  );
}

function NewOrganizationForm({ onDone }: { onDone: () => void }) {
  const { switchTo } = useOrganizations();
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const created = await gatehouse.organizations.create({ name: name.trim() });
    onDone();
    await switchTo(created.id);
  });
  return (
    <FormDialog
      titleId="new-org-title"
      title="New organization"
      intro={<p class="hint">Agents, chats, webhooks and API keys made in it are shared with the members you invite. You will be its owner.</p>}
      submission={create}
      submitLabel="Create and switch"
      busyLabel="Creating…"
      onCancel={onDone}
    >
      <Field label="Name" name="org-name" required maxLength={100} value={name} onValue={setName} error={create.error?.fields.name} />
    </FormDialog>
  );
}
