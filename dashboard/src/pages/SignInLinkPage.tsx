import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { describeError, type ErrorView } from '../lib/errors.ts';
import { forgetQuery, navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';
import { EmailCodeLogin } from './EmailCodeLogin.tsx';
import { SecondFactorStep } from './LoginPage.tsx';

/**
 * The page behind a mailed sign-in link, `/sign-in?token=…`: signs in as it opens (the router then
 * leaves for the overview), asks for the second factor on an account that has one, or says why a
 * link no longer works and offers a new code by mail right there. The token is spent once, even
 * where effects run twice (the ref), and leaves the address bar as it is read.
 */
export function SignInLinkPage({ query }: { query: URLSearchParams }) {
  const { logInWithEmailLink } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const [state, setState] = useState<'working' | ErrorView | { mfaToken: string }>('working');
  // Set once a code from this page's own form asks for the second factor.
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    forgetQuery();
    if (!token) {
      setState({ message: 'This link has no sign-in token. Open the link from the email again.', fields: {}, requestId: null, code: null });
      return;
    }
    logInWithEmailLink(token)
      .then((challenge) => {
        if (challenge) setState({ mfaToken: challenge.mfaToken });
      })
      .catch((e) => setState(describeError(e)));
  }, []);
  const challenge = mfaToken ?? (typeof state === 'object' && 'mfaToken' in state ? state.mfaToken : null);
  if (challenge) return <SecondFactorStep mfaToken={challenge} onRestart={() => navigate('/login')} />;
  const error = typeof state === 'object' && !('mfaToken' in state) ? state : null;
  if (!error) {
    return (
      <>
        <PageHeading title="Signing in" />
        <p role="status">Signing you in…</p>
      </>
    );
  }
  return (
    <>
      <PageHeading title="This sign-in link does not work" />
      <ErrorAlert error={error} />
      <p>A sign-in link works once, for 10 minutes, and only the newest one sent. Type your address for a new code.</p>
      <EmailCodeLogin createAccount={false} onSecondFactor={setMfaToken} other={{ label: 'Log in with a password', onClick: () => navigate('/login') }} />
    </>
  );
}
