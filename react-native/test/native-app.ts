/**
 * The example app as a native client of the suite's OpenID issuer (global-setup.mjs), and what
 * its sign-in sheet hands it: a real ID token for its own client id, with its nonce, got the way
 * the sheet gets one (authorization code with PKCE). Fetch and node:crypto only (Jest workers).
 */
import { createHash, randomBytes } from 'node:crypto';
import { signInAtProvider } from '../../server/test/provider-browser.js';

export const NATIVE_TEST_APP = { clientId: 'com.example.gatehousechat', clientSecret: 'the native sheet at the test issuer', redirectUri: 'com.example.gatehousechat:/oauth' };

export const nativeTestClient = (app: typeof NATIVE_TEST_APP) =>
  ({ client_id: app.clientId, client_secret: app.clientSecret, redirect_uris: [app.redirectUri], application_type: 'native' as const });

/** Signs `email` in at the suite's issuer as the app and returns the sheet's ID token; `nonce` goes to the issuer as given. */
export async function sheetIdToken(email: string, nonce?: string): Promise<string> {
  const issuer = process.env.GATEHOUSE_TEST_ISSUER!;
  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json() as { authorization_endpoint: string; token_endpoint: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(metadata.authorization_endpoint);
  const params: Record<string, string> = {
    client_id: NATIVE_TEST_APP.clientId, redirect_uri: NATIVE_TEST_APP.redirectUri, response_type: 'code', scope: 'openid email profile',
    state: randomBytes(8).toString('hex'), code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    ...(nonce === undefined ? {} : { nonce }),
  };
  for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
  const back = await signInAtProvider(authorize.href, email, { until: (url) => url.href.startsWith(NATIVE_TEST_APP.redirectUri) });
  const code = new URLSearchParams(back.href.split('?')[1]).get('code')!;
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: NATIVE_TEST_APP.redirectUri, code_verifier: verifier,
      client_id: NATIVE_TEST_APP.clientId, client_secret: NATIVE_TEST_APP.clientSecret,
    }).toString(),
  });
  const tokens = await response.json() as { id_token?: string };
  if (!tokens.id_token) throw new Error(`the issuer gave no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}
