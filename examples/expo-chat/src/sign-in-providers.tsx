/**
 * The server's sign-in providers as buttons: the platform's own sheet for those that take native
 * ID tokens (Sign in with Apple on iOS, Google's account sheet on Android), a browser session for
 * those with a web flow. A guest that signs in this way becomes that provider's account, keeping
 * its agents and chats (the package sends the guest's token along).
 */
import { createSignInNonce, useGatehouse, useSession, type Gatehouse } from '@gatehouse/react-native';
import * as AppleAuthentication from 'expo-apple-authentication';
import { useEffect, useState } from 'react';
import { Platform } from 'react-native';
import { Button } from './ui';

export type SignInProvider = Awaited<ReturnType<Gatehouse['auth']['providers']>>['data'][number];

const APP_LINK_URL = process.env.EXPO_PUBLIC_APP_LINK_URL ?? 'gatehouse-example://auth';

/**
 * Google's OAuth client of type "Web application": on Android, Google issues the ID token to it
 * (it must be among the server's `native_client_ids` for the provider).
 */
const GOOGLE_WEB_CLIENT_ID = process.env.EXPO_PUBLIC_GOOGLE_WEB_CLIENT_ID;

/** `client.auth.providers()`, once; none configured (or no answer), none. */
export function useSignInProviders(): SignInProvider[] {
  const client = useGatehouse();
  const [providers, setProviders] = useState<SignInProvider[]>([]);
  useEffect(() => {
    let current = true;
    client.auth.providers().then(
      (list) => current && setProviders(list.data),
      () => current && setProviders([]),
    );
    return () => {
      current = false;
    };
  }, [client]);
  return providers;
}

type GoogleSignInModule = typeof import('@react-native-google-signin/google-signin');
let googleModule: GoogleSignInModule | null | undefined;

/**
 * @react-native-google-signin/google-signin, or null where its native module is not in the build:
 * Expo Go has none (it needs a development build), and the Google button stays hidden there rather
 * than the app failing to start. Metro bundles the package all the same.
 */
function googleSignIn(): GoogleSignInModule | null {
  if (googleModule === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      googleModule = require('@react-native-google-signin/google-signin') as GoogleSignInModule;
    } catch {
      googleModule = null;
    }
  }
  return googleModule;
}

/**
 * The provider each native button signs in with: Apple's on iOS when the device offers Sign in with
 * Apple, Google's on Android when the build has Google's module. Only providers of that `type`
 * whose ID tokens the server takes (`native`).
 */
export function nativeSignInProviders(providers: SignInProvider[], platform: string, appleAvailable: boolean) {
  const nativeOf = (type: SignInProvider['type']) => providers.find((provider) => provider.type === type && provider.native);
  return {
    apple: platform === 'ios' && appleAvailable ? nativeOf('apple') : undefined,
    google: platform === 'android' && googleSignIn() ? nativeOf('google') : undefined,
  };
}

/** Apple names the person on the first sign-in only: kept for a retry after a failed one. */
let appleName: string | undefined;

/**
 * "Sign in with Apple" (iOS), "Sign in with Google" (Android), then "Continue with …" for each
 * provider with a browser flow. `run` is the screen's attempt (busy, errors, a second factor); a
 * closed sheet is no error.
 */
export function ProviderButtons({ providers, run, disabled }: { providers: SignInProvider[]; run: (action: () => Promise<unknown>) => Promise<void>; disabled: boolean }) {
  const { signInWithIdToken, signInWithProvider } = useSession();
  const wantsApple = Platform.OS === 'ios' && providers.some((provider) => provider.type === 'apple' && provider.native);
  const [appleAvailable, setAppleAvailable] = useState(false);
  useEffect(() => {
    if (!wantsApple) return;
    let current = true;
    AppleAuthentication.isAvailableAsync().then(
      (available) => current && setAppleAvailable(available),
      () => current && setAppleAvailable(false),
    );
    return () => {
      current = false;
    };
  }, [wantsApple]);
  const { apple, google } = nativeSignInProviders(providers, Platform.OS, appleAvailable);

  const withApple = (provider: SignInProvider) =>
    run(async () => {
      const { nonce, hashedNonce } = createSignInNonce();
      let credential: AppleAuthentication.AppleAuthenticationCredential;
      try {
        credential = await AppleAuthentication.signInAsync({
          requestedScopes: [AppleAuthentication.AppleAuthenticationScope.FULL_NAME, AppleAuthentication.AppleAuthenticationScope.EMAIL],
          nonce: hashedNonce, // Apple puts the SHA-256 in the token; Gatehouse gets the nonce
        });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_REQUEST_CANCELED') return;
        throw error;
      }
      appleName = [credential.fullName?.givenName, credential.fullName?.familyName].filter(Boolean).join(' ') || appleName;
      // signInAsync rejects a credential without an identity token.
      await signInWithIdToken({ provider: provider.id, idToken: credential.identityToken!, nonce, ...(appleName ? { name: appleName } : {}) });
      appleName = undefined;
    });

  const withGoogle = (provider: SignInProvider) =>
    run(async () => {
      const { GoogleSignin } = googleSignIn()!;
      GoogleSignin.configure(GOOGLE_WEB_CLIENT_ID ? { webClientId: GOOGLE_WEB_CLIENT_ID } : {});
      await GoogleSignin.hasPlayServices({ showPlayServicesUpdateDialog: true });
      // The free package (16.x) takes no nonce: the token goes without one.
      const response = await GoogleSignin.signIn();
      if (response.type !== 'success') return; // the person closed the sheet
      // The app keeps Gatehouse's session, not Google's: the next sign-in offers the account picker again.
      await GoogleSignin.signOut().catch(() => undefined);
      const { idToken } = response.data;
      if (!idToken) throw new Error('Google gave no ID token: build the app with EXPO_PUBLIC_GOOGLE_WEB_CLIENT_ID, a web client id the server lists in native_client_ids.');
      await signInWithIdToken({ provider: provider.id, idToken });
    });

  // The browser comes back through the app's link, under the server's APP_LINK_URL.
  const inBrowser = (provider: SignInProvider) => run(() => signInWithProvider(provider.id, { redirectUri: `${APP_LINK_URL}/oidc` }));

  return (
    <>
      {apple && (
        // The App Store asks for Apple's own button; it is drawn by iOS.
        <AppleAuthentication.AppleAuthenticationButton
          accessibilityLabel="Sign in with Apple"
          buttonType={AppleAuthentication.AppleAuthenticationButtonType.SIGN_IN}
          buttonStyle={AppleAuthentication.AppleAuthenticationButtonStyle.BLACK}
          cornerRadius={8}
          style={{ height: 44, marginVertical: 4 }}
          onPress={() => void (disabled ? undefined : withApple(apple))}
        />
      )}
      {google && <Button title="Sign in with Google" onPress={() => void withGoogle(google)} disabled={disabled} />}
      {providers
        // A provider whose sheet is on screen needs no second button for its browser flow.
        .filter((provider) => provider.web && provider !== apple && provider !== google)
        .map((provider) => (
          <Button key={provider.id} kind="plain" title={`Continue with ${provider.name}`} onPress={() => void inBrowser(provider)} disabled={disabled} />
        ))}
    </>
  );
}
