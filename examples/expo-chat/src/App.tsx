/**
 * The example app: the provider at the top, mailed links routed to handleAuthLink, and a small
 * stack of screens chosen by state (no navigation library, to keep the example about Gatehouse).
 */
import { GatehouseProvider, mfaChallengeOf, useSession, type Agent, type AuthLinkResult, type Chat } from '@gatehouse/react-native';
import { useEffect, useRef, useState } from 'react';
import { ActivityIndicator, Linking, Text, View } from 'react-native';
import { AgentsScreen } from './screens/AgentsScreen';
import { ChatScreen } from './screens/ChatScreen';
import { ChatsScreen } from './screens/ChatsScreen';
import { InvitationScreen } from './screens/InvitationScreen';
import { LockScreen } from './screens/LockScreen';
import { MfaScreen } from './screens/MfaScreen';
import { ResetPasswordScreen } from './screens/ResetPasswordScreen';
import { SignInScreen } from './screens/SignInScreen';
import { UpgradeScreen } from './screens/UpgradeScreen';
import { describeError, styles } from './ui';

/** Where Gatehouse runs: EXPO_PUBLIC_GATEHOUSE_URL at bundle time; the Android emulator's name for the host otherwise. */
const GATEHOUSE_URL = process.env.EXPO_PUBLIC_GATEHOUSE_URL ?? 'http://10.0.2.2:8080';

/**
 * The stored session opens after Face ID / fingerprint on a cold start and after five minutes
 * away. A phone that cannot ask (an emulator with nothing enrolled) is let through: an app holding
 * money or health data would keep the default, `stay-locked`, and offer only "Log out" there.
 */
const BIOMETRIC_LOCK = { afterBackgroundSeconds: 300, prompt: { promptMessage: 'Unlock Gatehouse Chat' }, whenUnavailable: 'unlock' } as const;

export default function App() {
  return (
    <GatehouseProvider baseUrl={GATEHOUSE_URL} biometricLock={BIOMETRIC_LOCK}>
      <Main />
    </GatehouseProvider>
  );
}

type Route = { screen: 'agents' } | { screen: 'upgrade' } | { screen: 'chats'; agent: Agent } | { screen: 'chat'; chat: Chat; agent: Agent };

function Main() {
  const session = useSession();
  const [route, setRoute] = useState<Route>({ screen: 'agents' });
  const [reset, setReset] = useState<Extract<AuthLinkResult, { kind: 'reset-password' }> | null>(null);
  const [invitation, setInvitation] = useState<Extract<AuthLinkResult, { kind: 'invitation' }> | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // A sign-in (on a screen or by a mailed link) that waits for the account's second factor.
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const { handleAuthLink, status } = session;

  // Whoever signs in next starts at the agents list, not inside the last user's chat.
  useEffect(() => {
    if (status === 'signed-out') setRoute({ screen: 'agents' });
  }, [status]);

  // A mailed link that opened the app, at launch or while it runs (APP_LINK_URL=gatehouse-example://auth).
  // The launch URL is handled once: its token works once, and effects can run again (Fast Refresh).
  const launchUrlHandled = useRef(false);
  useEffect(() => {
    const open = async (url: string | null) => {
      if (!url) return;
      try {
        const result = await handleAuthLink(url);
        if (result.kind === 'email-verified') setNotice('Your email address is verified.');
        if (result.kind === 'reset-password') setReset(result);
        if (result.kind === 'invitation') setInvitation(result);
        if (result.kind === 'signed-in') setNotice(null); // a mailed sign-in link: the session shows by itself
      } catch (error) {
        // A sign-in link to an account with a second factor asks for it; a used or old link gets
        // the server's sentence, which says to ask for a new one.
        const challenge = mfaChallengeOf(error);
        if (challenge) setMfaToken(challenge.mfaToken);
        else setNotice(describeError(error));
      }
    };
    if (!launchUrlHandled.current) {
      launchUrlHandled.current = true;
      void Linking.getInitialURL().then(open);
    }
    const subscription = Linking.addEventListener('url', ({ url }) => void open(url));
    return () => subscription.remove();
  }, [handleAuthLink]);

  if (reset) return <ResetPasswordScreen complete={reset.complete} onDone={() => setReset(null)} />;
  if (session.status === 'loading') return <ActivityIndicator style={{ flex: 1 }} />;
  if (session.status === 'locked') return <LockScreen />;
  if (mfaToken) return <MfaScreen mfaToken={mfaToken} onDone={() => setMfaToken(null)} />;
  if (invitation) return <InvitationScreen invitation={invitation} signedIn={session.status === 'signed-in'} onDone={() => setInvitation(null)} />;
  return (
    <View style={{ flex: 1 }}>
      {notice && <Text style={[styles.muted, { paddingTop: 40, paddingHorizontal: 16 }]} onPress={() => setNotice(null)}>{notice}</Text>}
      {session.status === 'signed-out' ? (
        <SignInScreen onMfa={setMfaToken} />
      ) : route.screen === 'agents' ? (
        <AgentsScreen onOpen={(agent) => setRoute({ screen: 'chats', agent })} onUpgrade={() => setRoute({ screen: 'upgrade' })} />
      ) : route.screen === 'upgrade' ? (
        <UpgradeScreen onDone={() => setRoute({ screen: 'agents' })} />
      ) : route.screen === 'chats' ? (
        <ChatsScreen agent={route.agent} onOpen={(chat) => setRoute({ screen: 'chat', chat, agent: route.agent })} onBack={() => setRoute({ screen: 'agents' })} />
      ) : (
        <ChatScreen chat={route.chat} onBack={() => setRoute({ screen: 'chats', agent: route.agent })} />
      )}
    </View>
  );
}
