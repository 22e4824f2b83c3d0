import { ActionForm } from '../components/ActionForm.tsx';
import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { isGatehouseError } from '@gatehouse/sdk';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';
import { EmailCodeLogin } from './EmailCodeLogin.tsx';
import { SecondFactorStep } from './LoginPage.tsx';

export function SignupPage() {
  const { logIn, setNotice } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // "Sign up with an email code": no password; the code makes the account (or signs in to the address's own).
  const [byCode, setByCode] = useState(false);
  // An address that has an account already, with a second factor: the code signs in to it, then asks for that.
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.auth.register({ name: name.trim(), email: email.trim(), password });
    try {
      await logIn(email.trim(), password);
    } catch (e) {
      // REQUIRE_EMAIL_VERIFICATION=true: the account exists, but login waits for the email link.
      if (isGatehouseError(e, 'email_not_verified')) {
        setNotice('Your account is created. Open the link we emailed you to confirm your address, then log in.');
        navigate(`/login?email=${encodeURIComponent(email.trim())}`, { replace: true });
        return;
      }
      throw e;
    }
    // Signed in now: the router takes the visitor to the overview (app.tsx, redirectFor).
  });
  if (mfaToken) return <SecondFactorStep mfaToken={mfaToken} onRestart={() => navigate('/login')} />;
  if (byCode) {
    return (
      <>
        <PageHeading title="Create your account with an email code">No password to choose: you sign in with a code we email you. Your name, a password or a passkey can be set in Settings afterwards.</PageHeading>
        <EmailCodeLogin initialEmail={email.trim()} createAccount autoFocus onSecondFactor={setMfaToken} other={{ label: 'Choose a password instead', onClick: () => setByCode(false) }} />
        <p class="aside">
          Already have an account? <Link href="/login">Log in</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading title="Create your account" />
      <ErrorAlert error={error} />
      <ActionForm class="form card" onSubmit={() => run()}>
        <Field label="Name" name="name" autocomplete="name" required maxLength={100} value={name} onValue={setName} error={error?.fields.name} />
        <Field label="Email" name="email" type="email" autocomplete="email" required maxLength={254} value={email} onValue={setEmail} error={error?.fields.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          maxLength={128}
          hint="8 to 128 characters. Common and breached passwords are refused; a few unusual words work well."
          value={password}
          onValue={setPassword}
          error={error?.fields.password}
        />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Creating your account…">
            Create account
          </SubmitButton>
        </div>
      </ActionForm>
      <p class="actions">
        <button type="button" class="button button-secondary" onClick={() => setByCode(true)}>
          Sign up with an email code instead
        </button>
      </p>
      <p class="aside">
        Already have an account? <Link href="/login">Log in</Link>
      </p>
    </>
  );
}
