import { useSession } from '../lib/session.tsx';
import { Field } from './Field.tsx';

/**
 * The password that confirms a sensitive change of one's own account. An account without one
 * (`has_password: false`: it signs in with a provider or a passkey) gets no field and sends none:
 * a recent sign-in confirms the change instead, and the page says so.
 */
export function CurrentPasswordField(props: { name: string; value: string; onValue: (value: string) => void; error: string | undefined }) {
  const { me } = useSession();
  if (me && !me.has_password) {
    return <p class="hint">Your account has no password (you sign in with a provider or a passkey): a sign-in in the last few minutes confirms this.</p>;
  }
  return <Field label="Your password" type="password" autocomplete="current-password" required {...props} />;
}
