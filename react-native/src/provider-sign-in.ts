/**
 * Sign-in with a provider (Google, Apple, GitHub… as the server's OIDC_PROVIDERS names them) in
 * an app: the provider's page opens in a browser session (expo-web-browser's
 * openAuthSessionAsync: ASWebAuthenticationSession on iOS, Custom Tabs on Android), comes back
 * through the app's link (under the server's APP_LINK_URL) with a one-time code, and the app
 * redeems it with the PKCE verifier that never left it.
 */
import { GatehouseError, providerCallbackOf, type Gatehouse, type RandomBytes } from '@gatehouse/sdk';
import { platformRandomBytes } from './random-bytes.js';

/** What expo-web-browser's openAuthSessionAsync resolves with (`success` carries the URL it came back to). */
export interface AuthSessionResult {
  type: string;
  url?: string;
}
export type OpenAuthSession = (url: string, redirectUri: string) => Promise<AuthSessionResult>;

export interface ProviderSignInOptions {
  /** The app's link the browser returns to, under the server's APP_LINK_URL (e.g. `myapp://auth/oidc`). */
  redirectUri: string;
  /** Default: expo-web-browser's openAuthSessionAsync (an optional peer dependency). */
  openAuthSession?: OpenAuthSession;
  /** Default: crypto.getRandomValues where the runtime has it, else expo-crypto's getRandomBytes. */
  randomBytes?: RandomBytes;
}

export function loadOpenAuthSession(): OpenAuthSession {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('expo-web-browser') as { openAuthSessionAsync: OpenAuthSession }).openAuthSessionAsync;
  } catch {
    throw new Error('Provider sign-in needs expo-web-browser: npx expo install expo-web-browser (or pass openAuthSession)');
  }
}

/**
 * The browser part: opens the provider's sign-in and waits for the app's link. Resolves with the
 * one-time code and its verifier, for `client.auth.completeProviderSignIn` (signing in) or
 * `client.me.identities.link` (linking in settings). A cancelled or refused sign-in rejects with a
 * GatehouseError (`access_denied`, `provider_error`).
 */
export async function authorizeWithProvider(client: Gatehouse, providerId: string, options: ProviderSignInOptions): Promise<{ code: string; codeVerifier: string }> {
  const start = await client.auth.providerSignIn(providerId, { redirectUri: options.redirectUri, randomBytes: options.randomBytes ?? platformRandomBytes() });
  const result = await (options.openAuthSession ?? loadOpenAuthSession())(start.url, options.redirectUri);
  if (result.type !== 'success' || !result.url) {
    throw new GatehouseError({ code: 'access_denied', status: 0, detail: 'The sign-in was closed before it finished.' });
  }
  return { code: providerCallbackOf(result.url).code, codeVerifier: start.codeVerifier };
}
