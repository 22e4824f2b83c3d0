/**
 * An OAuth client's side of an authorization in tests, over real HTTP: a browser that is a
 * cookie jar following redirects by hand, and a person who answers the consent step with the
 * API the dashboard's consent page calls. (The dashboard's journeys drive the page itself in
 * Chromium.)
 */
import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import { browser } from './oauth-browser.js';

export { answerInBrowser, browser } from './oauth-browser.js';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export interface FlowOptions {
  scope: string;
  redirectUri: string;
  resource?: string;
  decision?: 'allow' | 'deny';
}

/**
 * Code + PKCE through the consent step: the person (their session's access token) answers, and
 * the app exchanges the code. Returns the token response, or where a denial landed.
 */
export async function authorizeWithCode(as: oauth.AuthorizationServer, client: oauth.Client, clientAuth: oauth.ClientAuth, person: string, options: FlowOptions) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id, redirect_uri: options.redirectUri, response_type: 'code', scope: options.scope, state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    ...(options.resource ? { resource: options.resource } : {}),
  }).toString();
  const go = browser();
  const toInteraction = await go(url);
  expect(toInteraction.status, await toInteraction.clone().text()).toBe(303);
  const interaction = new URL(toInteraction.headers.get('location')!, url);
  const decided = await go(`${interaction}/decision`, {
    method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: options.decision ?? 'allow' }),
  });
  expect(decided.status, await decided.clone().text()).toBe(200);
  const resumed = await go((await decided.json() as { redirect_to: string }).redirect_to);
  expect(resumed.status).toBe(303);
  const landed = new URL(resumed.headers.get('location')!);
  if (options.decision === 'deny') return { landed, state };
  const params = oauth.validateAuthResponse(as, client, landed, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, options.redirectUri, verifier, {
    ...insecure, ...(options.resource ? { additionalParameters: { resource: options.resource } } : {}),
  });
  return { landed, state, tokens: await oauth.processAuthorizationCodeResponse(as, client, response) };
}

