import { useState } from 'preact/hooks';
import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Notice } from '../components/Notice.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { useSession } from '../lib/session.tsx';

/**
 * "Email me a sign-in code": the address, then the 6-digit code from the mail (the mail's link
 * opens /sign-in and does the same). Only an account's address gets a mail from here
 * (`create_account: false`): signing up is the signup page's job. The server answers alike for
 * every address, so the page says the same whatever it was.
 */
export function EmailCodeLogin({ initialEmail, onSecondFactor, onCancel }: { initialEmail: string; onSecondFactor: (mfaToken: string) => void; onCancel: () => void }) {
  const { logInWithEmailCode } = useSession();
  const [email, setEmail] = useState(initialEmail);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const send = useAction(async () => {
    await gatehouse.auth.startEmailSignIn({ email: email.trim(), create_account: false });
    setSentTo(email.trim());
    setCode('');
  });
  const verify = useAction(async () => {
    const challenge = await logInWithEmailCode(sentTo!, code.trim());
    if (challenge) onSecondFactor(challenge.mfaToken);
  });
  if (sentTo === null) {
    return (
      <>
        <ErrorAlert error={send.error} />
        <ActionForm class="form card" onSubmit={() => send.run()}>
          <Field label="Email" name="email" type="email" autocomplete="username" required value={email} onValue={setEmail} error={send.error?.fields.email} hint="We mail a 6-digit code and a link that signs you in. Both work for 10 minutes." />
          <div class="actions">
            <SubmitButton busy={send.busy} busyLabel="Sending…">
              Email me a code
            </SubmitButton>
            <button type="button" class="button button-secondary" onClick={onCancel}>
              Use my password instead
            </button>
          </div>
        </ActionForm>
      </>
    );
  }
  return (
    <>
      <Notice tone="info">
        If <strong class="long-text">{sentTo}</strong> has an account, a code is on its way. Type it here, or open the link in the mail.
      </Notice>
      <ErrorAlert error={verify.error ?? send.error} />
      <ActionForm class="form card" onSubmit={() => verify.run()}>
        <Field label="Sign-in code" name="code" type="text" inputMode="numeric" autocomplete="one-time-code" required value={code} onValue={setCode} error={verify.error?.fields.code} hint="The 6 digits in the mail." />
        <div class="actions">
          <SubmitButton busy={verify.busy} busyLabel="Signing in…">
            Sign in
          </SubmitButton>
          <button type="button" class="button button-secondary" onClick={() => void send.run()} aria-disabled={send.busy ? 'true' : undefined}>
            {send.busy ? 'Sending…' : 'Send a new code'}
          </button>
          <button type="button" class="button button-secondary" onClick={() => setSentTo(null)}>
            Use another address
          </button>
        </div>
      </ActionForm>
    </>
  );
}
