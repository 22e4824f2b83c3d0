/**
 * What a platform's native sign-in sheet hands an app (Sign in with Apple's `identityToken`,
 * Google's `idToken`): a real ID token from test/oidc-issuer.ts, got the way the sheet gets it
 * (authorization code with PKCE for the app's own client id, with the app's nonce), so its
 * audience is the app and its signature the issuer's.
 */
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { signInAtProvider } from './provider-browser.js';

export interface NativeApp {
  /** The app's client id at the issuer (an iOS bundle id, Google's client id for the app). */
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** A native client for startTestIssuer: a custom-scheme redirect, as an app registers. */
export function nativeTestClient(app: NativeApp) {
  return { client_id: app.clientId, client_secret: app.clientSecret, redirect_uris: [app.redirectUri], application_type: 'native' as const };
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Signs `accountId` in at the issuer as `app` and returns the ID token. `nonce`: what the app
 * put in the request (Apple's sheet takes the SHA-256 of the app's raw nonce; Google's the raw
 * one); the token carries it as given. Undefined: no nonce.
 */
export async function nativeIdToken(issuerUrl: string, app: NativeApp, accountId: string, nonce?: string): Promise<string> {
  const config = await oidc.discovery(new URL(issuerUrl), app.clientId, undefined, oidc.ClientSecretPost(app.clientSecret), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: app.redirectUri, scope: 'openid email profile', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    ...(nonce === undefined ? {} : { nonce }),
  });
  const back = await signInAtProvider(url.href, accountId, { until: (next) => next.href.startsWith(app.redirectUri) });
  const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state, ...(nonce === undefined ? {} : { expectedNonce: nonce }), idTokenExpected: true });
  return tokens.id_token!;
}
