/**
 * Log in or create an account: a password, an email code, the platform's sheet (Apple, Google), a
 * provider in a browser, or no account at all (a guest, upgraded later). A second factor goes to
 * `onMfa` whichever way was taken.
 */
import { useSession } from '@gatehouse/react-native';
import { useState } from 'react';
import { ProviderButtons, useSignInProviders } from '../sign-in-providers';
import { Button, ErrorLine, Field, Screen, useSignInAttempt } from '../ui';
import { EmailCodeScreen } from './EmailCodeScreen';

export function SignInScreen({ onMfa }: { onMfa: (mfaToken: string) => void }) {
  const { signIn, signUp, signInAsGuest } = useSession();
  const providers = useSignInProviders();
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  const [byCode, setByCode] = useState(false);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSignInAttempt(onMfa);

  if (byCode) return <EmailCodeScreen initialEmail={email.trim()} createAccount={mode === 'sign-up'} onMfa={onMfa} onPassword={() => setByCode(false)} />;

  const submit = () => run(() => (mode === 'sign-in' ? signIn(email.trim(), password) : signUp({ email: email.trim(), password, name: name.trim() })));
  return (
    <Screen title={mode === 'sign-in' ? 'Log in' : 'Create an account'}>
      {mode === 'sign-up' && <Field label="Name" value={name} onChangeText={setName} autoCapitalize="words" />}
      <Field label="Email" value={email} onChangeText={setEmail} keyboardType="email-address" autoComplete="email" />
      <Field label="Password" value={password} onChangeText={setPassword} secureTextEntry autoComplete={mode === 'sign-in' ? 'password' : 'new-password'} />
      <ErrorLine error={error} />
      <Button title={mode === 'sign-in' ? 'Log in' : 'Sign up'} onPress={() => void submit()} disabled={busy} />
      <Button kind="plain" title={mode === 'sign-in' ? 'Email me a sign-in code' : 'Sign up with an email code instead'} onPress={() => setByCode(true)} disabled={busy} />
      <ProviderButtons providers={providers} run={run} disabled={busy} />
      <Button kind="plain" title={mode === 'sign-in' ? 'New here? Create an account' : 'Have an account? Log in'} onPress={() => setMode(mode === 'sign-in' ? 'sign-up' : 'sign-in')} />
      <Button kind="plain" title="Try without an account" onPress={() => void run(signInAsGuest)} disabled={busy} />
    </Screen>
  );
}
