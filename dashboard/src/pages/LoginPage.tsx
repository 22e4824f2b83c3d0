import { useState } from 'preact/hooks';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { useAction } from '../lib/hooks.ts';
import { useSession } from '../lib/session.tsx';

export function LoginPage({ query }: { query: URLSearchParams }) {
  const { logIn, notice, setNotice } = useSession();
  const [email, setEmail] = useState(query.get('email') ?? '');
  const [password, setPassword] = useState('');
  // Once signed in, the router leaves this page for `?next=` (app.tsx, redirectFor).
  const { run, busy, error } = useAction(() => {
    setNotice(null);
    return logIn(email.trim(), password);
  });
  return (
    <>
      <PageHeading title="Log in" />
      {notice && <Notice tone="info">{notice}</Notice>}
      <ErrorAlert error={error} />
      <form
        class="form card"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <Field label="Email" name="email" type="email" autocomplete="username" required value={email} onValue={setEmail} error={error?.fields.username ?? error?.fields.email} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={error?.fields.password} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Logging in…">
            Log in
          </SubmitButton>
          <Link href="/forgot-password">Forgot your password?</Link>
        </div>
      </form>
      <p class="aside">
        New here? <Link href="/signup">Create an account</Link>
      </p>
    </>
  );
}
