import { ActionForm } from '../components/ActionForm.tsx';
import { useEffect, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse } from '../lib/api.ts';
import { describeError, type ErrorView } from '../lib/errors.ts';
import { useAction } from '../lib/hooks.ts';
import { safeNext } from '../lib/next.ts';
import { takePending, type PendingProviderSignIn } from '../lib/provider-sign-in.ts';
import { forgetQuery, navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';
import { SecondFactorStep } from './LoginPage.tsx';

type Step =
  | { kind: 'working' }
  | { kind: 'mfa'; mfaToken: string }
  | { kind: 'password'; pending: PendingProviderSignIn; code: string }
  | { kind: 'failed'; error: ErrorView; mode: PendingProviderSignIn['mode'] };

const problem = (message: string): ErrorView => ({ message, fields: {}, requestId: null, code: null });

/**
 * Where a provider sends the browser back (`?code=…&state=…`, or `?error=…`): signs in, or links
 * the provider to the signed-in account (asking for the password when the account has one).
 */
export function ProviderCallbackPage({ query }: { query: URLSearchParams }) {
  const { completeProviderSignIn } = useSession();
  const [step, setStep] = useState<Step>({ kind: 'working' });
  useEffect(() => {
    // The code works once: out of the address bar and history at once.
    forgetQuery();
    const pending = takePending(query.get('state'));
    const code = query.get('code');
    if (!pending) {
      setStep({ kind: 'failed', mode: 'sign-in', error: problem('This sign-in was not started in this tab, or it was finished already. Start again.') });
      return;
    }
    if (query.get('error') || !code) {
      const cancelled = query.get('error') === 'access_denied';
      setStep({ kind: 'failed', mode: pending.mode, error: problem(cancelled ? `The sign-in at ${pending.providerName} was cancelled.` : query.get('error_description') ?? `${pending.providerName} could not sign you in.`) });
      return;
    }
    void (async () => {
      try {
        if (pending.mode === 'link') {
          const linked = await link(pending, code, undefined);
          if (!linked) setStep({ kind: 'password', pending, code });
          return;
        }
        const challenge = await completeProviderSignIn(code, pending.codeVerifier);
        if (challenge) setStep({ kind: 'mfa', mfaToken: challenge.mfaToken });
        else navigate(safeNext(pending.next), { replace: true });
      } catch (error) {
        setStep({ kind: 'failed', mode: pending.mode, error: describeError(error) });
      }
    })();
  }, []);

  if (step.kind === 'mfa') return <SecondFactorStep mfaToken={step.mfaToken} onRestart={() => navigate('/login', { replace: true })} />;
  if (step.kind === 'password') return <ConfirmLink pending={step.pending} code={step.code} />;
  return (
    <>
      <PageHeading title="Signing you in" />
      {step.kind === 'working' ? (
        <p role="status">One moment…</p>
      ) : (
        <>
          <ErrorAlert error={step.error} />
          <p>{step.mode === 'link' ? <Link href="/settings/security">Back to Settings → Security</Link> : <Link href="/login">Back to log in</Link>}</p>
        </>
      )}
    </>
  );
}

/** Links the provider; false when the account's password is needed first. */
async function link(pending: PendingProviderSignIn, code: string, password: string | undefined): Promise<boolean> {
  try {
    await gatehouse.me.identities.link({ code, codeVerifier: pending.codeVerifier, ...(password === undefined ? {} : { password }) });
  } catch (error) {
    if (password === undefined && describeError(error).fields.password) return false;
    throw error;
  }
  navigate(`/settings/security?linked=${encodeURIComponent(pending.providerName)}`, { replace: true });
  return true;
}

/**
 * The account has a password: confirm it. The password is checked before the code is spent, so a
 * mistyped one can be tried again while the code lives (2 minutes).
 */
function ConfirmLink({ pending, code }: { pending: PendingProviderSignIn; code: string }) {
  const [password, setPassword] = useState('');
  const { run, busy, error } = useAction(() => link(pending, code, password));
  return (
    <>
      <PageHeading title={`Link ${pending.providerName}`} />
      <ErrorAlert error={error} />
      <ActionForm class="form card" onSubmit={() => run()}>
        <Field label="Your password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={error?.fields.password} hint={`Confirm it is you to sign in with ${pending.providerName} from now on.`} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Linking…">
            Link {pending.providerName}
          </SubmitButton>
          <Link href="/settings/security">Cancel</Link>
        </div>
      </ActionForm>
    </>
  );
}
