/**
 * A guest keeps its work: `upgradeGuest` gives the same account (same agents and chats) an address,
 * and a password and a name if given; or a provider's sheet or browser sign-in makes it that
 * provider's account. An address or identity that already has an account is refused (409), and the
 * guest stays a guest.
 */
import { useSession } from '@gatehouse/react-native';
import { useEffect, useState } from 'react';
import { Text } from 'react-native';
import { ProviderButtons, useSignInProviders } from '../sign-in-providers';
import { Button, ErrorLine, Field, Screen, styles, useSignInAttempt } from '../ui';

export function UpgradeScreen({ onDone }: { onDone: () => void }) {
  const { user, upgradeGuest } = useSession();
  const providers = useSignInProviders();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSignInAttempt();

  // Saved, whichever way: back to the agents, now the account's.
  useEffect(() => {
    if (user && !user.is_anonymous) onDone();
  }, [user, onDone]);

  const save = () => run(() => upgradeGuest({ email: email.trim(), ...(password ? { password } : {}), ...(name.trim() ? { name: name.trim() } : {}) }));

  return (
    <Screen title="Save your account" right={<Button kind="plain" title="Back" onPress={onDone} />}>
      <Text style={styles.notice}>Your agents and chats stay as they are. We email you a link to confirm the address.</Text>
      <Field label="Name" value={name} onChangeText={setName} autoCapitalize="words" />
      <Field label="Email" value={email} onChangeText={setEmail} keyboardType="email-address" autoComplete="email" />
      <Field label="Password (optional)" value={password} onChangeText={setPassword} secureTextEntry autoComplete="new-password" />
      <Text style={styles.muted}>Without a password, log in later with an email code.</Text>
      <ErrorLine error={error} />
      <Button title="Save" onPress={() => void save()} disabled={busy || email.trim() === ''} />
      <ProviderButtons providers={providers} run={run} disabled={busy} />
    </Screen>
  );
}
