/**
 * Signing in with a mailed code: the address, then the 6 digits from the mail (the mail's link,
 * opened on this phone, signs in too: App.tsx hands it to handleAuthLink). From the log-in screen
 * only an existing account's address gets a mail (`createAccount: false`: a mistyped address makes
 * no account); from the sign-up screen the code may make one. The server answers alike for every
 * address, so the screen cannot say whether a mail went, and says so.
 */
import { useSession } from '@gatehouse/react-native';
import { useState } from 'react';
import { Text } from 'react-native';
import { Button, ErrorLine, Field, Screen, styles, useSignInAttempt } from '../ui';

const CODE = /^\d{6}$/;

export function EmailCodeScreen({ initialEmail, createAccount, onMfa, onPassword }: { initialEmail: string; createAccount: boolean; onMfa: (mfaToken: string) => void; onPassword: () => void }) {
  const { sendEmailCode, signInWithEmailCode } = useSession();
  const [email, setEmail] = useState(initialEmail);
  // The address the newest code went to; `again` once a new one replaced an earlier one.
  const [sent, setSent] = useState<{ to: string; again: boolean } | null>(null);
  const [code, setCode] = useState('');
  const send = useSignInAttempt();
  const verify = useSignInAttempt(onMfa);

  const sendTo = (to: string) =>
    send.run(async () => {
      verify.setError(null);
      await sendEmailCode(to, { createAccount });
      setSent({ to, again: sent !== null });
      setCode('');
    });
  // Pasted from the mail with a space around it: the digits are what count.
  const signIn = (typed: string) =>
    verify.run(async () => {
      send.setError(null);
      await signInWithEmailCode(sent!.to, typed.replace(/\s/g, ''));
    });
  // The keyboard's suggestion from the mail (one-time-code autofill) fills all six at once: go on by itself.
  const onCode = (typed: string) => {
    setCode(typed);
    if (CODE.test(typed.replace(/\s/g, '')) && !verify.busy) void signIn(typed);
  };

  const title = createAccount ? 'Sign up with an email code' : 'Log in with an email code';
  if (sent === null) {
    return (
      <Screen title={title}>
        <Text style={styles.notice}>We email you a 6-digit code, and a link that signs you in on this phone. Both work once, for 10 minutes.</Text>
        <Field label="Email" value={email} onChangeText={setEmail} keyboardType="email-address" autoComplete="email" textContentType="emailAddress" />
        <ErrorLine error={send.error} />
        <Button title="Email me a code" onPress={() => void sendTo(email.trim())} disabled={send.busy || email.trim() === ''} />
        <Button kind="plain" title="Use a password instead" onPress={onPassword} />
      </Screen>
    );
  }
  return (
    <Screen title={title}>
      <Text style={styles.notice}>
        {sent.again ? 'A new code' : 'A code'} {createAccount ? `is on its way to ${sent.to}.` : `is on its way, if an account uses ${sent.to}.`} Type it
        here, or open the link in the mail on this phone.{sent.again ? ' The codes and links sent before no longer work.' : ''}
      </Text>
      <Field label="Sign-in code" value={code} onChangeText={onCode} textContentType="oneTimeCode" autoComplete="one-time-code" keyboardType="number-pad" maxLength={12} />
      <ErrorLine error={verify.error ?? send.error} />
      <Button title={createAccount ? 'Continue' : 'Log in'} onPress={() => void signIn(code)} disabled={verify.busy || code.trim() === ''} />
      <Button kind="plain" title={send.busy ? 'Sending…' : 'Send a new code'} onPress={() => void sendTo(sent.to)} disabled={send.busy} />
      <Button
        kind="plain"
        title="Use another address"
        onPress={() => {
          send.setError(null);
          verify.setError(null);
          setEmail(sent.to);
          setSent(null);
        }}
      />
      {!createAccount && <Text style={styles.muted}>No mail after a minute? Check the address and your spam folder.</Text>}
    </Screen>
  );
}
