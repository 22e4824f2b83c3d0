/**
 * Log in or create an account: a password, an email code, or a provider of the server in a
 * browser. A second factor goes to `onMfa` whichever way was taken.
 */
import { useGatehouse, useSession } from '@gatehouse/react-native';
import { useEffect, useState } from 'react';
import { Button, ErrorLine, Field, Screen, useSignInAttempt } from '../ui';
import { EmailCodeScreen } from './EmailCodeScreen';

const APP_LINK_URL = process.env.EXPO_PUBLIC_APP_LINK_URL ?? 'gatehouse-example://auth';

export function SignInScreen({ onMfa }: { onMfa: (mfaToken: string) => void }) {
  const { signIn, signUp, signInWithProvider } = useSession();
  const client = useGatehouse();
  const [providers, setProviders] = useState<Array<{ id: string; name: string }>>([]);
  // The server's sign-in providers (OIDC_PROVIDERS); none configured, no buttons.
  useEffect(() => {
    client.auth.providers().then((list) => setProviders(list.data.filter((provider) => provider.web)), () => setProviders([]));
  }, [client]);
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  const [byCode, setByCode] = useState(false);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSignInAttempt(onMfa);

  if (byCode) return <EmailCodeScreen initialEmail={email.trim()} createAccount={mode === 'sign-up'} onMfa={onMfa} onPassword={() => setByCode(false)} />;

  const submit = () => run(() => (mode === 'sign-in' ? signIn(email.trim(), password) : signUp({ email: email.trim(), password, name: name.trim() })));
  // The browser comes back through the app's link, under the server's APP_LINK_URL.
  const withProvider = (id: string) => run(() => signInWithProvider(id, { redirectUri: `${APP_LINK_URL}/oidc` }));
  return (
    <Screen title={mode === 'sign-in' ? 'Log in' : 'Create an account'}>
      {mode === 'sign-up' && <Field label="Name" value={name} onChangeText={setName} autoCapitalize="words" />}
      <Field label="Email" value={email} onChangeText={setEmail} keyboardType="email-address" autoComplete="email" />
      <Field label="Password" value={password} onChangeText={setPassword} secureTextEntry autoComplete={mode === 'sign-in' ? 'password' : 'new-password'} />
      <ErrorLine error={error} />
      <Button title={mode === 'sign-in' ? 'Log in' : 'Sign up'} onPress={() => void submit()} disabled={busy} />
      <Button kind="plain" title={mode === 'sign-in' ? 'Email me a sign-in code' : 'Sign up with an email code instead'} onPress={() => setByCode(true)} disabled={busy} />
      {providers.map((provider) => (
        <Button key={provider.id} kind="plain" title={`Continue with ${provider.name}`} onPress={() => void withProvider(provider.id)} disabled={busy} />
      ))}
      <Button kind="plain" title={mode === 'sign-in' ? 'New here? Create an account' : 'Have an account? Log in'} onPress={() => setMode(mode === 'sign-in' ? 'sign-up' : 'sign-in')} />
    </Screen>
  );
}
