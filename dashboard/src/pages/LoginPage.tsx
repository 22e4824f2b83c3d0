import { ActionForm } from '../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { useAction } from '../lib/hooks.ts';
import { isCancelled, passkeysSupported } from '../lib/passkeys.ts';
import { useSession } from '../lib/session.tsx';
import { EmailCodeLogin } from './EmailCodeLogin.tsx';
import { ProviderButtons } from './ProviderButtons.tsx';

export function LoginPage({ query }: { query: URLSearchParams }) {
  const { logIn, logInWithPasskey, notice, setNotice } = useSession();
  const [email, setEmail] = useState(query.get('email') ?? '');
  const [password, setPassword] = useState('');
  // Set when the password was right and the account has a second factor.
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  // "Email me a sign-in code" instead of the password.
  const [byCode, setByCode] = useState(false);
  // Once signed in, the router leaves this page for `?next=` (app.tsx, redirectFor).
  const { run, busy, error } = useAction(async () => {
    setNotice(null);
    const challenge = await logIn(email.trim(), password);
    if (challenge) {
      setPassword('');
      setMfaToken(challenge.mfaToken);
    }
  });
  const passkey = useAction(async () => {
    setNotice(null);
    try {
      await logInWithPasskey();
    } catch (error) {
      if (!isCancelled(error)) throw error;
    }
  });
  if (mfaToken) return <SecondFactorStep mfaToken={mfaToken} onRestart={() => setMfaToken(null)} />;
  if (byCode) {
    return (
      <>
        <PageHeading title="Log in with an email code" />
        <EmailCodeLogin initialEmail={email.trim()} createAccount={false} autoFocus onSecondFactor={setMfaToken} other={{ label: 'Use my password instead', onClick: () => setByCode(false) }} />
      </>
    );
  }
  return (
    <>
      <PageHeading title="Log in" />
      {notice && <Notice tone="info">{notice}</Notice>}
      <ErrorAlert error={error ?? passkey.error} />
      <ActionForm class="form card" onSubmit={() => run()}>
        <Field label="Email" name="email" type="email" autocomplete="username" required value={email} onValue={setEmail} error={error?.fields.username ?? error?.fields.email} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={error?.fields.password} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Logging in…">
            Log in
          </SubmitButton>
          <Link href="/forgot-password">Forgot your password?</Link>
        </div>
      </ActionForm>
      <p class="actions">
        <button
          type="button"
          class="button button-secondary"
          onClick={() => {
            setNotice(null);
            setByCode(true);
          }}
        >
          Email me a sign-in code
        </button>
      </p>
      <ProviderButtons next={query.get('next') ?? '/'} />
      {passkeysSupported() && (
        <p class="actions">
          <button type="button" class="button button-secondary" onClick={() => void passkey.run()} aria-disabled={passkey.busy ? 'true' : undefined}>
            {passkey.busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
          </button>
        </p>
      )}
      <p class="aside">
        New here? <Link href="/signup">Create an account</Link>
      </p>
    </>
  );
}

/** The code from the authenticator app, or a recovery code, after a correct password or provider sign-in. */
export function SecondFactorStep({ mfaToken, onRestart }: { mfaToken: string; onRestart: () => void }) {
  const { completeMfa } = useSession();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const { run, busy, error } = useAction(() => completeMfa(mfaToken, recovery ? { recovery_code: code.trim() } : { code: code.trim() }));
  // The token lives 5 minutes: after that only a new password step helps.
  const expired = error?.code === 'invalid_token';
  return (
    <>
      <PageHeading title="Two-step verification" />
      <ErrorAlert error={error} />
      {expired ? (
        <p>
          <button type="button" class="button button-primary" onClick={onRestart}>
            Log in again
          </button>
        </p>
      ) : (
        <ActionForm class="form card" onSubmit={() => run()}>
          {recovery ? (
            <Field label="Recovery code" name="recovery_code" type="text" autocomplete="off" required value={code} onValue={setCode} error={error?.fields.recovery_code} hint="Each recovery code works once." />
          ) : (
            <Field label="Code from your authenticator app" name="code" type="text" inputMode="numeric" autocomplete="one-time-code" required value={code} onValue={setCode} error={error?.fields.code} hint="The 6 digits it shows now." />
          )}
          <div class="actions">
            <SubmitButton busy={busy} busyLabel="Checking…">
              Verify
            </SubmitButton>
            <button
              type="button"
              class="button button-secondary"
              onClick={() => {
                setRecovery(!recovery);
                setCode('');
              }}
            >
              {recovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
            </button>
          </div>
        </ActionForm>
      )}
    </>
  );
}
