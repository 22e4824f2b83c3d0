import { ActionForm } from '../../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

export function PasswordPage() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [done, setDone] = useState(false);
  const { run, busy, error, setError } = useAction(async () => {
    setDone(false);
    if (next !== confirm) {
      setError({ message: 'The two new passwords are not the same.', fields: { confirm: 'Type the same new password twice.' }, requestId: null, code: null });
      return;
    }
    await gatehouse.me.changePassword({ current_password: current, new_password: next });
    setCurrent('');
    setNext('');
    setConfirm('');
    setDone(true);
  });
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <p class="hint">Every other session is signed out; this one stays.</p>
      {done && <Notice>Your password is changed. Other sessions were signed out.</Notice>}
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" onSubmit={() => run()}>
        <Field label="Current password" name="current_password" type="password" autocomplete="current-password" required value={current} onValue={setCurrent} error={error?.fields.current_password} />
        <Field label="New password" name="new_password" type="password" autocomplete="new-password" required minLength={8} maxLength={128} value={next} onValue={setNext} error={error?.fields.new_password} hint="8 to 128 characters; common and breached passwords are refused." />
        <Field label="New password again" name="confirm" type="password" autocomplete="new-password" required value={confirm} onValue={setConfirm} error={error?.fields.confirm} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Change password
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
