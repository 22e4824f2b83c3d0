/**
 * The second step for an account with an authenticator app, whichever way the first went (a
 * password, an email code or link, a provider): the app's 6 digits, or a recovery code.
 */
import { isGatehouseError, useSession } from '@gatehouse/react-native';
import { useState } from 'react';
import { Text } from 'react-native';
import { Button, ErrorLine, Field, Screen, styles, useSignInAttempt } from '../ui';

export function MfaScreen({ mfaToken, onDone }: { mfaToken: string; onDone: () => void }) {
  const { verifyMfa } = useSession();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const { busy, error, run } = useSignInAttempt();
  // The challenge lives 5 minutes: after that only a new first step helps.
  const expired = isGatehouseError(error, 'invalid_token');

  const verify = () =>
    run(async () => {
      const proof = code.replace(/\s/g, '');
      await verifyMfa(mfaToken, recovery ? { recovery_code: proof } : { code: proof });
      onDone();
    });

  return (
    <Screen title="Two-step verification">
      <ErrorLine error={error} />
      {expired ? (
        <Button title="Log in again" onPress={onDone} />
      ) : (
        <>
          <Text style={styles.notice}>{recovery ? 'Each recovery code works once.' : 'Type the 6 digits your authenticator app shows now.'}</Text>
          {recovery ? (
            <Field label="Recovery code" value={code} onChangeText={setCode} autoCorrect={false} />
          ) : (
            <Field label="Authenticator code" value={code} onChangeText={setCode} textContentType="oneTimeCode" autoComplete="one-time-code" keyboardType="number-pad" />
          )}
          <Button title="Verify" onPress={() => void verify()} disabled={busy || code.trim() === ''} />
          <Button
            kind="plain"
            title={recovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
            onPress={() => {
              setRecovery(!recovery);
              setCode('');
            }}
          />
          <Button kind="plain" title="Cancel" onPress={onDone} />
        </>
      )}
    </Screen>
  );
}
