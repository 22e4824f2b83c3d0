import { useState } from 'preact/hooks';
import { CurrentPasswordField } from '../../components/CurrentPasswordField.tsx';
import { FormDialog } from '../../components/FormDialog.tsx';
import { Modal } from '../../components/Modal.tsx';
import { gatehouse, onSessionChange } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAction } from '../../lib/hooks.ts';
import { navigate } from '../../lib/router.ts';
import { useSession } from '../../lib/session.tsx';
import { ExportButton } from './DownloadDataCard.tsx';

/** What the login page says once the deletion is scheduled (or done, with no grace period). */
export function deletionNotice(dueAt: string, now = Date.now()): string {
  return Date.parse(dueAt) <= now
    ? 'Your account is deleted.'
    : `Your account will be deleted on ${formatDateTime(dueAt)}. Every session was signed out and every API key revoked. Log in before then to restore it.`;
}

/**
 * Confirms a deletion (DELETE /v1/users/me): offers the export first, asks for the password (an
 * account without one sends none: a recent sign-in, or the second factor through step-up, confirms
 * it), then leaves for the login page, which shows the date.
 */
export function DeleteAccountDialog({ open, onCancel }: { open: boolean; onCancel: () => void }) {
  return (
    <Modal open={open} labelledBy="delete-account-title" onCancel={onCancel} initialFocus=".dialog-cancel" wide>
      {open && <DeleteAccountForm onCancel={onCancel} />}
    </Modal>
  );
}

function DeleteAccountForm({ onCancel }: { onCancel: () => void }) {
  const { setNotice } = useSession();
  const [password, setPassword] = useState('');
  const deletion = useAction(async () => {
    // The SDK clears the session as the call succeeds: go to the login page in that same moment, so
    // the router does not first send this signed-out page to `/login?next=/settings/account` (after
    // a restoring sign-in, the overview is the place to land, not this page).
    const stop = onSessionChange((signedIn) => signedIn || navigate('/login', { replace: true }));
    try {
      const { deletion_due_at } = await gatehouse.me.delete(password ? { password } : {});
      // The session context signed out with a generic line: say what happened instead.
      setNotice(deletionNotice(deletion_due_at));
    } finally {
      stop();
    }
  });
  const signInAgain = deletion.error?.code === 'forbidden';
  return (
    <FormDialog
      titleId="delete-account-title"
      title="Delete your account?"
      intro={
        <div class="dialog-body">
          <ul>
            <li>At once: every session is signed out, every API key you made is revoked (they stay revoked), and a change of email you asked for lapses.</li>
            <li>After the grace period (30 days unless the service is set up otherwise): the account and what it owns (agents, chats, webhooks, your personal organization) are gone for good.</li>
            <li>Until then, signing in again restores the account.</li>
          </ul>
          <p>Keep a copy first:</p>
          <ExportButton label="Download your data first" secondary />
        </div>
      }
      submission={deletion}
      stepUp
      errorHint={signInAgain && <p class="hint">Log out, sign in again, and come back here within a few minutes.</p>}
      submitLabel="Delete my account"
      busyLabel="Deleting…"
      variant="danger"
      onCancel={onCancel}
    >
      <CurrentPasswordField name="delete-password" value={password} onValue={setPassword} error={deletion.error?.fields.password} />
    </FormDialog>
  );
}
