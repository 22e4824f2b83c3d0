/** Log in, or create an account and be signed in to it. */
import { useSession } from '@gatehouse/react-native';
import { useState } from 'react';
import { Button, ErrorLine, Field, Screen } from '../ui';

export function SignInScreen() {
  const { signIn, signUp } = useSession();
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      if (mode === 'sign-in') await signIn(email.trim(), password);
      else await signUp({ email: email.trim(), password, name: name.trim() });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Screen title={mode === 'sign-in' ? 'Log in' : 'Create an account'}>
      {mode === 'sign-up' && <Field label="Name" value={name} onChangeText={setName} autoCapitalize="words" />}
      <Field label="Email" value={email} onChangeText={setEmail} keyboardType="email-address" autoComplete="email" />
      <Field label="Password" value={password} onChangeText={setPassword} secureTextEntry autoComplete={mode === 'sign-in' ? 'password' : 'new-password'} />
      <ErrorLine error={error} />
      <Button title={mode === 'sign-in' ? 'Log in' : 'Sign up'} onPress={submit} disabled={busy} />
      <Button kind="plain" title={mode === 'sign-in' ? 'New here? Create an account' : 'Have an account? Log in'} onPress={() => setMode(mode === 'sign-in' ? 'sign-up' : 'sign-in')} />
    </Screen>
  );
}
