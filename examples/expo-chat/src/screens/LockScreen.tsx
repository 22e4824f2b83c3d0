/**
 * Shown while the stored session waits for Face ID / fingerprint (`status: 'locked'`): the prompt
 * opens by itself, "Unlock" asks again after a cancel, and "Log out" is the way out for a phone
 * that cannot ask or a person who is not the owner.
 */
import { useBiometricLock, useSession } from '@gatehouse/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { Button, ErrorLine, Screen, styles } from '../ui';

export function LockScreen() {
  const { unlock, unlocking, error } = useBiometricLock();
  const { signOut } = useSession();

  // Once per lock: a cancel leaves the screen up with the button, rather than prompting in a loop.
  useEffect(() => {
    void unlock();
  }, [unlock]);

  return (
    <Screen title="Locked">
      <Text style={styles.muted}>Your chats open after Face ID or your fingerprint.</Text>
      {error?.code === 'biometric_cancelled' ? null : <ErrorLine error={error} />}
      <Button title="Unlock" onPress={() => void unlock()} disabled={unlocking} />
      <Button kind="plain" title="Log out" onPress={() => void signOut()} />
    </Screen>
  );
}
