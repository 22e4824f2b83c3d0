import { useEffect, useRef, useState } from 'preact/hooks';
import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { fieldIds } from '../components/FieldFrame.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { useSession } from '../lib/session.tsx';

interface EmailCodeLoginProps {
  initialEmail?: string;
  /**
   * Whether proving the code may make an account for a new address (`create_account`): true on
   * the signup page only. From the login page (and a dead link's page) only an existing account's
   * address gets a mail: a mistyped address makes no account, and "Log in" never signs anyone up.
   */
  createAccount: boolean;
  onSecondFactor: (mfaToken: string) => void;
  /** The other way in, beside the first step's button ("Use my password instead"). */
  other: { label: string; onClick: () => void };
  /** Focus the address field when the form appears (it replaced what the user clicked). */
  autoFocus?: boolean;
}

/**
 * Signing in with a mailed code: the address, then the 6-digit code from the mail (the mail's
 * link opens /sign-in and does the same). The server answers alike for every address, so without
 * `createAccount` the page cannot say whether a mail went, and says so.
 */
export function EmailCodeLogin({ initialEmail = '', createAccount, onSecondFactor, other, autoFocus = false }: EmailCodeLoginProps) {
  const { logInWithEmailCode } = useSession();
  const [email, setEmail] = useState(initialEmail);
  // The address the newest code went to, and when (a new code says so: the earlier one is dead).
  const [sent, setSent] = useState<{ to: string; at: Date; again: boolean } | null>(null);
  const [code, setCode] = useState('');
  const send = useAction(async (to: string) => {
    verify.setError(null);
    await gatehouse.auth.startEmailSignIn({ email: to, create_account: createAccount });
    setSent({ to, at: new Date(), again: sent !== null });
    setCode('');
  });
  const verify = useAction(async () => {
    send.setError(null);
    // Pasted from the mail with a space or a line break around it: the digits are what count.
    const challenge = await logInWithEmailCode(sent!.to, code.replace(/\s/g, ''));
    if (challenge) onSecondFactor(challenge.mfaToken);
  });
  // The code field takes focus when it appears, and again after a new code: typing goes on there.
  // Back at the first step ("Use another address"), the address field does.
  const shown = useRef(false);
  useEffect(() => {
    const first = !shown.current;
    shown.current = true;
    if (sent || !first || autoFocus) document.getElementById(fieldIds(sent ? 'code' : 'email').id)?.focus();
  }, [sent]);

  if (sent === null) {
    return (
      <>
        <ErrorAlert error={send.error} />
        <ActionForm class="form card" onSubmit={() => send.run(email.trim())}>
          <Field
            label="Email"
            name="email"
            type="email"
            autocomplete={createAccount ? 'email' : 'username'}
            required
            maxLength={254}
            value={email}
            onValue={setEmail}
            error={send.error?.fields.email}
            hint="We email you a 6-digit code, and a link that signs you in. Both work once, for 10 minutes."
          />
          <div class="actions">
            <SubmitButton busy={send.busy} busyLabel="Sending…">
              Email me a code
            </SubmitButton>
            <button type="button" class="button button-secondary" onClick={other.onClick}>
              {other.label}
            </button>
          </div>
        </ActionForm>
      </>
    );
  }
  const time = sent.at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return (
    <>
      <Notice tone="info">
        {sent.again ? 'A new code' : 'A code'} {createAccount ? 'is on its way to ' : 'is on its way, if an account uses '}
        <strong class="long-text">{sent.to}</strong> (sent at {time}). Type it here, or open the link in the mail on this device.
        {sent.again && ' The codes and links sent before no longer work.'}
      </Notice>
      <ErrorAlert error={verify.error ?? send.error} />
      <ActionForm class="form card" onSubmit={() => verify.run()}>
        <Field
          label="Sign-in code"
          name="code"
          type="text"
          inputMode="numeric"
          autocomplete="one-time-code"
          required
          maxLength={12}
          value={code}
          onValue={setCode}
          error={verify.error?.fields.code}
          hint="The 6 digits in the mail."
        />
        <div class="actions">
          <SubmitButton busy={verify.busy} busyLabel="Signing in…">
            {createAccount ? 'Continue' : 'Sign in'}
          </SubmitButton>
          <button type="button" class="button button-secondary" onClick={() => void send.run(sent.to)} aria-disabled={send.busy ? 'true' : undefined}>
            {send.busy ? 'Sending…' : 'Send a new code'}
          </button>
          <button
            type="button"
            class="button button-secondary"
            onClick={() => {
              send.setError(null);
              verify.setError(null);
              setEmail(sent.to);
              setSent(null);
            }}
          >
            Use another address
          </button>
        </div>
      </ActionForm>
      {!createAccount && (
        <p class="aside">
          No mail after a minute? Check the address and your spam folder. No account yet? <Link href="/signup">Create one</Link>
        </p>
      )}
    </>
  );
}
