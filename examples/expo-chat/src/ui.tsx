/** The few building blocks every screen shares: a button, a labelled field, an error line, a sign-in attempt. */
import { isGatehouseError, mfaChallengeOf } from '@gatehouse/react-native';
import { useCallback, useState, type ReactNode } from 'react';
import { Pressable, StyleSheet, Text, TextInput, View, type TextInputProps } from 'react-native';

export function Button({ title, onPress, disabled, kind = 'primary' }: { title: string; onPress: () => void; disabled?: boolean; kind?: 'primary' | 'plain' }) {
  return (
    <Pressable accessibilityRole="button" onPress={onPress} disabled={disabled} style={[styles.button, kind === 'plain' && styles.plain, disabled && styles.disabled]}>
      <Text style={kind === 'plain' ? styles.plainText : styles.buttonText}>{title}</Text>
    </Pressable>
  );
}

export function Field({ label, ...input }: { label: string } & TextInputProps) {
  return (
    <View style={styles.field}>
      <Text style={styles.label}>{label}</Text>
      <TextInput accessibilityLabel={label} style={styles.input} autoCapitalize="none" {...input} />
    </View>
  );
}

/** What went wrong, in the server's own words (its `detail`), or nothing. */
export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  return <Text style={styles.error}>{describeError(error)}</Text>;
}

export function describeError(error: unknown): string {
  if (isGatehouseError(error)) {
    if (error.code === 'network_error') return 'No connection to the server. Retrying…';
    // The server's sentence does not name the wait (Retry-After does): a throttled code or mail says it.
    if (error.status === 429 && error.retryAfterSeconds !== null) return `${error.detail} Try again in ${formatWait(error.retryAfterSeconds)}.`;
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}

function formatWait(seconds: number): string {
  if (seconds < 60) return seconds <= 1 ? 'a second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? 'a minute' : `${minutes} minutes`;
}

/**
 * One way of signing in at a time: `busy` while it runs, its failure in `error` for an ErrorLine,
 * except an account's second factor, whose challenge goes to `onMfa` (the app then asks for the
 * authenticator's code: every way in can meet one).
 */
export function useSignInAttempt(onMfa?: (mfaToken: string) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (action: () => Promise<unknown>) => {
      setBusy(true);
      setError(null);
      try {
        await action();
      } catch (failure) {
        const challenge = onMfa ? mfaChallengeOf(failure) : null;
        if (challenge) onMfa!(challenge.mfaToken);
        else setError(failure);
      } finally {
        setBusy(false);
      }
    },
    [onMfa],
  );
  return { busy, error, setError, run };
}

export function Screen({ title, right, children }: { title: string; right?: ReactNode; children: ReactNode }) {
  return (
    <View style={styles.screen}>
      <View style={styles.header}>
        <Text accessibilityRole="header" style={styles.title}>{title}</Text>
        {right}
      </View>
      {children}
    </View>
  );
}

export const styles = StyleSheet.create({
  screen: { flex: 1, paddingTop: 56, paddingHorizontal: 16, backgroundColor: '#fff' },
  header: { flexDirection: 'row', alignItems: 'center', justifyContent: 'space-between', marginBottom: 16 },
  title: { fontSize: 24, fontWeight: '600' },
  button: { backgroundColor: '#1f4fd1', borderRadius: 8, paddingVertical: 12, paddingHorizontal: 16, alignItems: 'center', marginVertical: 4 },
  buttonText: { color: '#fff', fontWeight: '600' },
  plain: { backgroundColor: 'transparent' },
  plainText: { color: '#1f4fd1', fontWeight: '600' },
  disabled: { opacity: 0.5 },
  field: { marginBottom: 12 },
  label: { fontSize: 13, color: '#444', marginBottom: 4 },
  input: { borderWidth: 1, borderColor: '#bbb', borderRadius: 8, padding: 10, fontSize: 16 },
  error: { color: '#b00020', marginVertical: 8 },
  row: { paddingVertical: 14, borderBottomWidth: StyleSheet.hairlineWidth, borderColor: '#ccc' },
  rowTitle: { fontSize: 16 },
  muted: { color: '#666' },
  notice: { color: '#333', marginBottom: 12 },
  typing: { color: '#666', fontSize: 20, lineHeight: 20 },
});
