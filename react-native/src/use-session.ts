import type { RequestBody } from '@gatehouse/sdk';
import { useMemo, useSyncExternalStore } from 'react';
import { handleAuthLink, parseAuthLink, type AuthLinkResult } from './auth-link.js';
import type { PasskeyAuthenticator } from './passkeys.js';
import type { ProviderSignInOptions } from './provider-sign-in.js';
import { useGatehouseContext } from './provider.js';
import type { SessionSnapshot } from './session-controller.js';
import type { User } from './storage.js';

export interface UseSession extends SessionSnapshot {
  /** Rejects with 403 `mfa_required` on an account with a second factor: then call verifyMfa. */
  signIn(email: string, password: string): Promise<User>;
  /**
   * Signs in with a provider of the server (`client.auth.providers()`) in a browser session that
   * returns to `options.redirectUri` (under APP_LINK_URL). Rejects like signIn, and with
   * `access_denied` when the browser was closed.
   */
  signInWithProvider(providerId: string, options: ProviderSignInOptions): Promise<User>;
  /** Signs in with a passkey through the platform's sheet (react-native-passkeys); rejects with `aborted` when it was closed. */
  signInWithPasskey(options?: { passkeys?: PasskeyAuthenticator }): Promise<User>;
  /**
   * Mails a 6-digit code and a sign-in link to `email` (10 minutes). Resolves the same whether or
   * not the address has an account; `createAccount: false` mails only addresses that have one.
   */
  sendEmailCode(email: string, options?: { createAccount?: boolean }): Promise<void>;
  /** Signs in with that code; rejects with 401 `invalid_credentials` when it is wrong or old, and like signIn. */
  signInWithEmailCode(email: string, code: string): Promise<User>;
  /**
   * Signs in with the ID token of a platform's native sign-in (expo-apple-authentication's
   * `identityToken`, Google's `idToken`); `nonce` is `createSignInNonce().nonce` when the sheet
   * got its hash (Apple) or the nonce itself (Google). `name`: Apple gives it to the app once.
   */
  signInWithIdToken(input: { provider: string; idToken: string; nonce?: string; name?: string }): Promise<User>;
  /**
   * "Try without an account": signs in as a new guest (the server's ANONYMOUS_SIGN_IN; 404
   * `not_found` when it is off). `user.is_anonymous` is true and `user.email` null until
   * upgradeGuest. A guest cannot create API keys, organizations or webhooks (403 `guest_not_allowed`).
   */
  signInAsGuest(): Promise<User>;
  /** The guest keeps its id and data and gets an address (mailed for confirmation), a password, a name. 409 `email_taken` when the address has an account. */
  upgradeGuest(input: { email: string; password?: string; name?: string }): Promise<User>;
  /** Finishes such a sign-in with the challenge's token (`mfaChallengeOf(error).mfaToken`) and a code or recovery code. */
  verifyMfa(mfaToken: string, proof: { code: string } | { recovery_code: string }): Promise<User>;
  signUp(input: RequestBody<'register'>): Promise<User>;
  signOut(): Promise<void>;
  /** Ask the server again (e.g. pull to refresh); failures keep the session. */
  revalidate(): Promise<void>;
  /**
   * Completes a mailed link that opened the app: verify-email, reset-password, an invitation, or
   * a sign-in link (which signs in: `{ kind: 'signed-in', user }`, or rejects like signIn).
   */
  handleAuthLink(url: string): Promise<AuthLinkResult>;
}

/** The signed-in state: `loading` only until the stored session has been read (no request waits for it). */
export function useSession(): UseSession {
  const { client, controller } = useGatehouseContext();
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);
  const actions = useMemo(
    () => ({
      signIn: controller.signIn,
      signInWithProvider: controller.signInWithProvider,
      signInWithPasskey: controller.signInWithPasskey,
      signInWithEmailCode: controller.signInWithEmailCode,
      signInWithIdToken: controller.signInWithIdToken,
      signInAsGuest: controller.signInAsGuest,
      upgradeGuest: controller.upgradeGuest,
      async sendEmailCode(email: string, options: { createAccount?: boolean } = {}): Promise<void> {
        await client.auth.startEmailSignIn({ email, create_account: options.createAccount ?? true });
      },
      verifyMfa: controller.verifyMfa,
      signUp: controller.signUp,
      signOut: controller.signOut,
      revalidate: controller.revalidate,
      async handleAuthLink(url: string): Promise<AuthLinkResult> {
        // A sign-in link signs in through the controller, so the app's state follows at once.
        const link = parseAuthLink(url);
        if (link?.kind === 'sign-in') return { kind: 'signed-in', user: await controller.signInWithEmailLink(link.token) };
        const result = await handleAuthLink(client, url);
        // A verified address shows at once in the signed-in user.
        if (result.kind === 'email-verified' && controller.getSnapshot().status === 'signed-in') await controller.revalidate();
        return result;
      },
    }),
    [client, controller],
  );
  return { ...snapshot, ...actions };
}
