import { useEffect, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { gatehouse } from '../lib/api.ts';
import { describeError, type ErrorView } from '../lib/errors.ts';
import { forgetQuery } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';

/** The page behind the mailed link `/verify-email?token=…`: confirms the address as it opens. */
export function VerifyEmailPage({ query }: { query: URLSearchParams }) {
  const { status, refreshMe } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const [state, setState] = useState<'working' | 'done' | ErrorView>('working');
  useEffect(() => {
    forgetQuery();
    if (!token) {
      setState({ message: 'This link has no verification token. Open the link from the email again.', fields: {}, requestId: null, code: null });
      return;
    }
    gatehouse.auth
      .verifyEmail({ token })
      .then(() => {
        setState('done');
        if (status === 'signed-in') void refreshMe().catch(() => {});
      })
      .catch((e) => setState(describeError(e)));
  }, []);
  return (
    <>
      <PageHeading title="Confirm your email address" />
      {state === 'working' ? (
        <p role="status">Confirming…</p>
      ) : state === 'done' ? (
        <Notice>Your email address is confirmed. Thank you.</Notice>
      ) : (
        <>
          <ErrorAlert error={state} />
          <p>Links work once and for 24 hours. Signed in, you can ask for a new one on the overview page.</p>
        </>
      )}
      <p class="aside">{status === 'signed-in' ? <Link href="/">Go to the overview</Link> : <Link href="/login">Log in</Link>}</p>
    </>
  );
}
