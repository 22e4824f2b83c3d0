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
 * The page behind the mailed link `/verify-email?token=…`: confirms the address as it opens, with
 * the session when there is one. The same link confirms a change of email (sent to the new
 * address), which the server accepts only from the account's owner signed in, as it does the link
 * confirming an address a provider not trusted for addresses gave the account: signed out, it
 * answers 401 `authentication_required` and the link stays usable, so the page offers to log in
 * and the router brings the visitor back here with the token (`/login?next=…`). The server answers
 * a confirmed address and a confirmed change alike, so, signed in, the page compares the account's
 * address before and after to tell which it was.
 */
export function VerifyEmailPage({ query }: { query: URLSearchParams }) {
  const { status, me, refreshMe } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const here = `/verify-email?token=${encodeURIComponent(token)}`;
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
  // A change of email's link (or a provider-given address's) opened signed out: the server kept it for the owner, logged in.
  const needsLogin = typeof state === 'object' && state.code === 'authentication_required';
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
          <Notice>Your email address is confirmed. Thank you.</Notice>
        )
      ) : needsLogin ? (
        <section class="card" aria-labelledby="verify-signin-title">
          <h2 id="verify-signin-title">Log in to confirm your new email address</h2>
          <p>
            This link changes the email address you sign in with (or confirms the address a sign-in provider gave your account), so it works only for you, logged in. Log in
            with your current email address or that provider: you will come back to this page, and the link does its work.
          </p>
          <div class="actions">
            <Link class="button button-primary" href={`/login?next=${encodeURIComponent(here)}`}>
              Log in
            </Link>
          </div>
        </section>
      ) : (
        <>
          <ErrorAlert error={state} />
          <p>Links work once and for 24 hours. Signed in, you can ask for a new one on the overview page.</p>
        </>
      )}
      {!needsLogin && (
        <p class="aside">{status === 'signed-in' ? <Link href="/">Go to the overview</Link> : <Link href="/login">Log in</Link>}</p>
      )}
    </>
  );
}
