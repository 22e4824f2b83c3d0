import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction, useResource } from '../lib/hooks.ts';
import { useOrganizations } from '../lib/organizations.tsx';
import { forgetQuery, navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.tsx';

/**
 * The page behind the mailed link `/accept-invitation?token=gthi_…`. Signed in: one button joins
 * and switches to the organization. Signed out: log in or sign up first (with the invited
 * address), and the router brings the visitor back here (`?next=`).
 */
export function AcceptInvitationPage({ query }: { query: URLSearchParams }) {
  const { status } = useSession();
  const [token] = useState(() => query.get('token') ?? '');
  const here = `/accept-invitation?token=${encodeURIComponent(token)}`;
  // Who invites to what, before anyone signs in (a link that no longer works says why here).
  const preview = useResource(() => (token ? gatehouse.invitations.preview(token) : Promise.resolve(null)), [token]);
  const invitedTo = preview.data ? (
    <p class="invitation-preview">
      {preview.data.inviter_name ?? 'Someone'} invited you to join <strong>{preview.data.organization_name}</strong> as {preview.data.role}.
    </p>
  ) : null;
  return (
    <>
      <PageHeading title="Join an organization" />
      {!token ? (
        <ErrorAlert error={{ message: 'This link has no invitation token. Open the link from the email again.', fields: {}, requestId: null, code: null }} />
      ) : preview.error ? (
        <ErrorAlert error={preview.error} />
      ) : status === 'signed-in' ? (
        <AcceptForm token={token} invitedTo={invitedTo} />
      ) : (
        <section class="card" aria-labelledby="invite-signin-title">
          <h2 id="invite-signin-title">You have been invited</h2>
          {invitedTo}
          <p>Log in with the email address the invitation was sent to, or create an account with it. You will come back to this page to accept.</p>
          <div class="actions">
            <Link class="button button-primary" href={`/login?next=${encodeURIComponent(here)}`}>
              Log in to accept
            </Link>
            <Link class="button button-secondary" href={`/signup?next=${encodeURIComponent(here)}`}>
              Create an account
            </Link>
          </div>
        </section>
      )}
    </>
  );
}

function AcceptForm({ token, invitedTo }: { token: string; invitedTo: preact.JSX.Element | null }) {
  const { me } = useSession();
  const { switchTo } = useOrganizations();
  const [resent, setResent] = useState(false);
  const accept = useAction(async () => {
    const organization = await gatehouse.invitations.accept(token);
    forgetQuery();
    await switchTo(organization.id);
    navigate('/');
  });
  const resend = useAction(async () => {
    await gatehouse.me.resendVerification();
    setResent(true);
  });
  const unverified = accept.error?.code === 'email_not_verified' || me?.email_verified === false;
  return (
    <section class="card" aria-labelledby="invite-accept-title">
      <h2 id="invite-accept-title">You have been invited</h2>
      {invitedTo}
      <p>
        Accept to join the organization as <strong>{me?.email}</strong>: you will see and work with its agents, chats and webhooks, as your role allows, and the dashboard
        switches to it. Your personal organization stays yours.
      </p>
      <ErrorAlert error={accept.error ?? resend.error} />
      {unverified && (
        <div class="alert alert-warning">
          <p class="alert-title">Your email address is not confirmed yet.</p>
          <p>Open the link in the confirmation mail, then this invitation link again.</p>
          {resent ? (
            <Notice>A new confirmation mail is on its way.</Notice>
          ) : (
            <button type="button" class="button button-secondary button-small" onClick={() => void resend.run()}>
              Send the confirmation mail again
            </button>
          )}
        </div>
      )}
      <div class="actions">
        <button type="button" class="button button-primary" aria-disabled={accept.busy ? 'true' : undefined} onClick={() => void accept.run()}>
          {accept.busy ? 'Joining…' : 'Accept the invitation'}
        </button>
        <Link class="button button-secondary" href="/">
          Not now
        </Link>
      </div>
      <p class="hint">Invited at another address? Log out and log in with that one.</p>
    </section>
  );
}
