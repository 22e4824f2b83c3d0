import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { describeError, type ErrorView } from '../lib/errors.ts';
import { forgetQuery } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';
import { SecondFactorStep } from './LoginPage.tsx';

/**
 * The page behind a mailed sign-in link, `/sign-in?token=…`: signs in as it opens (the router then
 * leaves for the overview), asks for the second factor on an account that has one, or says why a
 * link no longer works. The token is spent once, even where effects run twice.
 */
export function SignInLinkPage({ query }: { query: URLSearchParams }) {
  const { logInWithEmailLink } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const [state, setState] = useState<'working' | ErrorView | { mfaToken: string }>('working');
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
  if (typeof state === 'object' && 'mfaToken' in state) return <SecondFactorStep mfaToken={state.mfaToken} onRestart={() => window.location.assign('/login')} />;
  return (
    <>
      <PageHeading title="Signing in" />
      {state === 'working' ? (
        <p role="status">Signing you in…</p>
      ) : (
        <>
          <ErrorAlert error={state} />
          <p>A sign-in link works once, for 10 minutes, and only the newest one asked for. Ask for a new code on the login page.</p>
          <p class="aside">
            <Link href="/login">Log in</Link>
          </p>
        </>
      )}
    </>
  );
}
