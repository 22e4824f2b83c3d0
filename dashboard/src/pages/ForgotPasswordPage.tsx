import { ActionForm } from '../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.auth.forgotPassword({ email: email.trim() });
    setSentTo(email.trim());
  });
  return (
    <>
      <PageHeading title="Reset your password" />
      {sentTo ? (
        <Notice>
          If an account uses <strong>{sentTo}</strong>, a link to choose a new password is on its way. It works once, for one hour.
        </Notice>
      ) : (
        <>
          <ErrorAlert error={error} />
          <ActionForm class="form card" onSubmit={() => run()}>
            <Field label="Email" name="email" type="email" autocomplete="email" required value={email} onValue={setEmail} error={error?.fields.email} hint="We will email you a link to choose a new password." />
            <div class="actions">
              <SubmitButton busy={busy} busyLabel="Sending…">
                Send the link
              </SubmitButton>
            </div>
          </ActionForm>
        </>
      )}
      <p class="aside">
        <Link href="/login">Back to log in</Link>
      </p>
    </>
  );
}
