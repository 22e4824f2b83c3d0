import { ActionForm } from './ActionForm.tsx';
import { useState } from 'preact/hooks';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { Field } from './Field.tsx';
import { SubmitButton } from './SubmitButton.tsx';

/**
 * Shown inside the error of a sensitive change the server refused with 403 mfa_required: a code
 * (or a recovery code) proves the factor for this session, then the change runs again.
 */
export function StepUpForm({ onProved }: { onProved: () => void }) {
  const [code, setCode] = useState('');
  const { run, busy, error } = useAction(async () => {
    const value = code.trim();
    await gatehouse.me.mfa.stepUp(/^\d{6}$/.test(value) ? { code: value } : { recovery_code: value });
    setCode('');
    onProved();
  });
  return (
    <ActionForm class="form step-up" onSubmit={() => run()}>
      <Field
        label="Code from your authenticator app"
        name="step_up_code"
        inputMode="numeric"
        autocomplete="one-time-code"
        required
        value={code}
        onValue={setCode}
        error={error?.fields.code ?? error?.fields.recovery_code ?? error?.message}
        hint="Or one of your recovery codes."
      />
      <div class="actions">
        <SubmitButton busy={busy} busyLabel="Confirming…">
          Confirm and continue
        </SubmitButton>
      </div>
    </ActionForm>
  );
}
