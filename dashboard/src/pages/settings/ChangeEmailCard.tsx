import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Notice } from '../../components/Notice.tsx';
import { CurrentPasswordField } from '../../components/CurrentPasswordField.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { useAction } from '../../lib/hooks.ts';

/**
 * Settings → Profile: a new sign-in address. The server mails a link to it; nothing changes until
 * that link is followed (the verify page), so the current address keeps signing in meanwhile.
 */
export function ChangeEmailCard({ current }: { current: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState<string | null>(null);
  const { run, busy, error } = useAction(async () => {
    setPending(null);
    // An account without a password sends none: a recent sign-in confirms it (the server says so otherwise).
    const { pending_email } = await gatehouse.me.changeEmail({ email: email.trim(), ...(password ? { password } : {}) });
    setPassword('');
    setEmail('');
    setPending(pending_email);
  });
  return (
    <section class="card" aria-labelledby="change-email-title">
      <h2 id="change-email-title">Change email</h2>
      <p>We send a link to the new address; the change happens when you open it. Your current address is told afterwards.</p>
      {pending && (
        <Notice>
          We sent a link to <strong class="long-text">{pending}</strong>. Until you confirm it, sign in with your current address, <span class="long-text">{current}</span>.
        </Notice>
      )}
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" onSubmit={() => run()}>
        <Field label="New email address" name="new-email" type="email" autocomplete="email" required maxLength={254} value={email} onValue={setEmail} error={error?.fields.email} />
        <CurrentPasswordField name="change-email-password" value={password} onValue={setPassword} error={error?.fields.password} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Sending…">
            Send the link
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
