/**
 * Sign-in with an OpenID Connect / OAuth 2 provider (Google, Apple, GitHub…), for web and mobile:
 * 1. `auth.providerSignIn(provider, { redirectUri })` → `{ url, codeVerifier }`: keep the verifier
 *    (sessionStorage on the web, memory in an app) and open `url` in the browser (a redirect on the
 *    web; an auth session such as expo-web-browser's openAuthSessionAsync on mobile).
 * 2. The browser comes back to `redirectUri` with `?code=…` (or `?error=…`): read it with
 *    `providerCallbackOf(url)`, then `auth.completeProviderSignIn({ code, codeVerifier })`.
 */
import { GatehouseError } from './errors.js';
import { buildUrl } from './http.js';
import { createPkcePair, type RandomBytes } from './pkce.js';
import { ROUTES } from './routes.js';

export interface ProviderSignInOptions {
  /** Where the browser returns with the code: the server's PUBLIC_URL/oidc-callback (its dashboard), one of its OIDC_REDIRECT_URIS, or under its APP_LINK_URL. */
  redirectUri: string;
  /** Your own value, handed back at the redirect URI (e.g. which screen to open). */
  state?: string;
  /** Random bytes where `crypto.getRandomValues` is missing (React Native: expo-crypto's getRandomBytes). */
  randomBytes?: RandomBytes;
}

export interface ProviderSignInStart {
  /** Open in the browser. */
  url: string;
  /** Keep until the browser comes back; only it redeems the code. */
  codeVerifier: string;
}

export async function startProviderSignIn(baseUrl: string, providerId: string, options: ProviderSignInOptions): Promise<ProviderSignInStart> {
  const { codeVerifier, codeChallenge } = await createPkcePair(options.randomBytes);
  const path = ROUTES.authorizeWithProvider.at[1].replace('{provider}', encodeURIComponent(providerId));
  const url = buildUrl(baseUrl, path, { redirect_uri: options.redirectUri, code_challenge: codeChallenge, code_challenge_method: 'S256', state: options.state });
  return { url, codeVerifier };
}

/**
 * What arrived at the redirect URI: `{ code, state }`. A refusal there (`?error=access_denied`
 * when the person cancelled, `provider_error` when the provider's answer failed Gatehouse's
 * checks) throws a GatehouseError with that code and status 0.
 */
export function providerCallbackOf(url: string): { code: string; state: string | null } {
  const params = new URL(url).searchParams;
  const error = params.get('error');
  if (error) throw new GatehouseError({ code: error, status: 0, detail: params.get('error_description') ?? 'The provider sign-in did not finish.' });
  const code = params.get('code');
  if (!code) throw new GatehouseError({ code: 'invalid_response', status: 0, detail: 'The redirect carried neither a code nor an error.' });
  return { code, state: params.get('state') };
}
