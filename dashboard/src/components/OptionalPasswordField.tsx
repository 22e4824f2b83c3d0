import { Field } from './Field.tsx';

/**
 * The password that confirms a sensitive change of one's own account. An account without one (it
 * signs in with a provider or a passkey) leaves it empty and sends none: a recent sign-in confirms.
 */
export function OptionalPasswordField(props: { name: string; value: string; onValue: (value: string) => void; error: string | undefined }) {
  return (
    <Field
      label="Your password"
      type="password"
      autocomplete="current-password"
      hint="No password on this account (you sign in with a provider or a passkey)? Leave it empty: a sign-in in the last few minutes confirms it."
      {...props}
    />
  );
}
