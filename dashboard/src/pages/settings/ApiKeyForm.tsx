import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { CheckboxGroup } from '../../components/CheckboxGroup.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse, SCOPES, type CreatedApiKey } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';
import { limitsBody, NO_LIMITS, type LimitInputs } from '../../lib/key-limits.ts';
import { KeyLimitFields, LIMIT_FIELDS } from './KeyLimitFields.tsx';

const EXPIRY_CHOICES = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'On a date…' },
] as const;

const SCOPE_OPTIONS = SCOPES.map((s) => ({ value: s, label: s }));

/** `expires_at` for the chosen option; a date means the end of that day, local time. */
function expiresAt(choice: string, date: string): string | null {
  if (choice === 'never') return null;
  if (choice === 'date') return date ? new Date(`${date}T23:59:59`).toISOString() : null;
  return new Date(Date.now() + Number(choice) * 86_400_000).toISOString();
}

function tomorrow(): string {
  const d = new Date(Date.now() + 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function ApiKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([...SCOPES]);
  const [expiry, setExpiry] = useState<string>('90');
  const [date, setDate] = useState('');
  const [limits, setLimits] = useState<LimitInputs>(NO_LIMITS);
  const [showLimits, setShowLimits] = useState(false);
  const { run, busy, error, setError } = useAction(async () => {
    const { body: limitFields, errors: limitErrors } = limitsBody(limits);
    if (scopes.length === 0) {
      setError({ message: 'Choose at least one scope.', fields: { scopes: 'Choose at least one scope.' }, requestId: null, code: null });
      return;
    }
    if (expiry === 'date' && !date) {
      setError({ message: 'Choose the day the key stops working.', fields: { expires_at: 'Choose a date.' }, requestId: null, code: null });
      return;
    }
    if (Object.keys(limitErrors).length > 0) {
      setError({ message: 'Check the limits of the key.', fields: limitErrors, requestId: null, code: null });
      return;
    }
    const created = await gatehouse.apiKeys.create({
      name: name.trim(),
      scopes: scopes as (typeof SCOPES)[number][],
      expires_at: expiresAt(expiry, date),
      ...limitFields,
    });
    setName('');
    setLimits(NO_LIMITS);
    onCreated(created);
  });
  return (
    <section class="card" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Create an API key</h2>
      <p class="hint">Programs use keys instead of your password. A key can do only what its scopes allow, and never manage your account.</p>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" aria-labelledby="new-key-title" onSubmit={() => run()}>
        <Field label="Name" name="key-name" required maxLength={100} placeholder="build server" hint="To recognise the key later." value={name} onValue={setName} error={error?.fields.name} />
        <CheckboxGroup legend="Scopes" name="scopes" options={SCOPE_OPTIONS} selected={scopes} onChange={setScopes} error={error?.fields.scopes} />
        <KeyLimitFields
          value={limits}
          onChange={setLimits}
          error={error}
          open={showLimits || LIMIT_FIELDS.some((f) => error?.fields[f])}
          onToggle={setShowLimits}
        />
        <div class={`field${error?.fields.expires_at ? ' field-invalid' : ''}`}>
          <label for="field-expiry">Expires</label>
          <select id="field-expiry" name="expiry" value={expiry} onChange={(e) => setExpiry((e.currentTarget as HTMLSelectElement).value)}>
            {EXPIRY_CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        {expiry === 'date' && (
          <Field label="Expiry date" name="expires_at" type="date" required min={tomorrow()} value={date} onValue={setDate} error={error?.fields.expires_at} hint="The key stops working at the end of this day." />
        )}
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Creating…">
            <Icon name="plus" />
            Create key
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
