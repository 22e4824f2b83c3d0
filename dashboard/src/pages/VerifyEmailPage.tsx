import { useEffect, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { gatehouse } from '../lib/api.ts';
import { describeError, type ErrorView } from '../lib/errors.ts';
import { forgetQuery } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';

/**
 * The page behind the mailed link `/verify-email?token=…`: confirms the address as it opens. The
 * same link confirms a change of email (sent to the new address); the server answers both alike,
 * so, signed in, the page compares the account's address before and after to tell which it was.
 */
export function VerifyEmailPage({ query }: { query: URLSearchParams }) {
  const { status, me, refreshMe } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const [before] = useState(() => me?.email ?? null);
  const [state, setState] = useState<'working' | 'done' | ErrorView>('working');
  useEffect(() => {
    forgetQuery();
    if (!token) {
      setState({ message: 'This link has no verification token. Open the link from the email again.', fields: {}, requestId: null, code: null });
      return;
    }
    gatehouse.auth
      .verifyEmail({ token })
      .then(async () => {
        // Read again before saying which it was (a failed read only loses that distinction).
        if (status === 'signed-in') await refreshMe().catch(() => {});
        setState('done');
      })
      .catch((e) => setState(describeError(e)));
  }, []);
  return (
    <>
      <PageHeading title="Confirm your email address" />
      {state === 'working' ? (
        <p role="status">Confirming…</p>
      ) : state === 'done' ? (
        before && me && me.email !== before ? (
          <Notice>
            Your email address is changed: sign in with <strong class="long-text">{me.email}</strong> from now on. <span class="long-text">{before}</span> no longer signs in.
          </Notice>
        ) : (
          <Notice>
            Your email address is confirmed. Thank you.{status !== 'signed-in' && ' If you asked to change it, sign in with the new address from now on.'}
          </Notice>
        )
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
