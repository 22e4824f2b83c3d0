import { ActionForm } from '../components/ActionForm.tsx';
import { useLayoutEffect, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction } from '../lib/hooks.ts';
import { forgetQuery } from '../lib/router.ts';

/** The page behind the mailed link `/reset-password?token=…`. */
export function ResetPasswordPage({ query }: { query: URLSearchParams }) {
  // Read once, then dropped from the address bar so it is not left in history or shared by accident:
  // in the same commit as the page appears (a layout effect), not a frame later, when someone could
  // already have copied the address.
  const [token] = useState(() => query.get('token') ?? '');
  useLayoutEffect(() => forgetQuery(), []);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  // A reset usually follows a compromise: revoking every API key is offered, and on, by default.
  const [revokeKeys, setRevokeKeys] = useState(true);
  const [done, setDone] = useState<{ keysRevoked: boolean } | null>(null);
  const { run, busy, error, setError } = useAction(async () => {
    if (password !== confirm) {
      setError({ message: 'The two passwords are not the same.', fields: { confirm: 'Type the same password twice.' }, requestId: null, code: null });
      return;
    }
    await gatehouse.auth.resetPassword({ token, password, revoke_api_keys: revokeKeys });
    setDone({ keysRevoked: revokeKeys });
  });

  if (!token) {
    return (
      <>
        <PageHeading title="Reset your password" />
        <div class="alert alert-error" role="alert">
          <p class="alert-title">This link has no reset token. Open the link from the email again, or ask for a new one.</p>
        </div>
        <p class="aside">
          <Link href="/forgot-password">Ask for a new link</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading title="Choose a new password" />
      {done ? (
        <>
          <Notice>
            Your password is changed, and every session of your account was signed out{done.keysRevoked ? '. Every API key was revoked: create new ones in Settings → API keys.' : '.'}
          </Notice>
          <p class="aside">
            <Link href="/login">Log in with the new password</Link>
          </p>
        </>
      ) : (
        <>
          <ErrorAlert error={error} />
          <ActionForm class="form card" onSubmit={() => run()}>
            <Field label="New password" name="password" type="password" autocomplete="new-password" required minLength={8} maxLength={128} value={password} onValue={setPassword} error={error?.fields.password} hint="8 to 128 characters; common and breached passwords are refused." />
            <Field label="New password again" name="confirm" type="password" autocomplete="new-password" required value={confirm} onValue={setConfirm} error={error?.fields.confirm} />
            <div class="field">
              <label class="checkbox">
                <input type="checkbox" name="revoke_api_keys" checked={revokeKeys} onChange={(event) => setRevokeKeys((event.currentTarget as HTMLInputElement).checked)} aria-describedby="field-revoke_api_keys-hint" />
                <span>Also revoke every API key</span>
              </label>
              <p class="hint" id="field-revoke_api_keys-hint">
                Recommended if someone else may have used your account: programs using the old keys stop working.
              </p>
            </div>
            <div class="actions">
              <SubmitButton busy={busy} busyLabel="Saving…">
                Set the new password
              </SubmitButton>
            </div>
          </ActionForm>
          {error?.code && ['invalid_token', 'token_expired', 'not_found'].includes(error.code) && (
            <p class="aside">
              <Link href="/forgot-password">Ask for a new link</Link>
            </p>
          )}
        </>
      )}
    </>
  );
}
