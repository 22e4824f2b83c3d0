/** Opened by a mailed reset link: asks for the new password and completes the reset. */
import { useState } from 'react';
import { Text } from 'react-native';
import { Button, ErrorLine, Field, Screen, styles } from '../ui';

export function ResetPasswordScreen({ complete, onDone }: { complete: (password: string, options?: { revokeApiKeys?: boolean }) => Promise<void>; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit() {
    setError(null);
    try {
      await complete(password, { revokeApiKeys: true }); // a reset usually follows a compromise
      setDone(true);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <Screen title="New password">
      {done ? (
        <>
          <Text style={styles.muted}>Your password is changed, and every session and API key was signed out. Log in with the new password.</Text>
          <Button title="Continue" onPress={onDone} />
        </>
      ) : (
        <>
          <Field label="New password" value={password} onChangeText={setPassword} secureTextEntry autoComplete="new-password" />
          <ErrorLine error={error} />
          <Button title="Set password" onPress={submit} disabled={password === ''} />
          <Button kind="plain" title="Cancel" onPress={onDone} />
        </>
      )}
    </Screen>
  );
}
