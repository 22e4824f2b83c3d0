/**
 * Sign-in with a provider as an app does it, against the live server and the real OpenID
 * provider the suite started (global-setup.mjs): the browser session is played by a fetch-only
 * browser that signs in at the provider's form and stops at the app's link.
 */
import { createGatehouse, isGatehouseError } from '@gatehouse/sdk';
import { act, screen } from '@testing-library/react-native';
import { authorizeWithProvider, type OpenAuthSession } from '../src/index.js';
import { signInAtProvider } from '../../server/test/provider-browser.js';
import { confirmEmail, PASSWORD, SERVER, uniqueEmail } from './helpers.js';
import { renderSignedOutApp } from './session-probe.js';

const REDIRECT_URI = 'gatehouse-example://auth/oidc';

/** A browser session that signs in as `email` at the provider and comes back through the app's link. */
const browserSession = (email: string, cancel = false): OpenAuthSession => async (url, redirectUri) => {
  const back = await signInAtProvider(url, email, { cancel, until: (u: URL) => u.toString().startsWith(redirectUri) });
  return { type: 'success', url: back.toString() };
};


it('signs in with a provider through a browser session and shows the new account', async () => {
  const { session } = await renderSignedOutApp();
  const email = uniqueEmail();
  await act(async () => {
    await session().signInWithProvider('test-idp', { redirectUri: REDIRECT_URI, openAuthSession: browserSession(email) });
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
});

it('rejects with access_denied when the person cancels or closes the browser, and stays signed out', async () => {
  const { session } = await renderSignedOutApp();
  let cancelled: unknown;
  await act(async () => {
    cancelled = await session().signInWithProvider('test-idp', { redirectUri: REDIRECT_URI, openAuthSession: browserSession(uniqueEmail(), true) }).catch((e) => e);
  });
  expect(isGatehouseError(cancelled, 'access_denied')).toBe(true);
  let closed: unknown;
  await act(async () => {
    closed = await session().signInWithProvider('test-idp', { redirectUri: REDIRECT_URI, openAuthSession: async () => ({ type: 'cancel' }) }).catch((e) => e);
  });
  expect(isGatehouseError(closed, 'access_denied')).toBe(true);
  expect(screen.getByTestId('session').props.children).toBe('signed-out:-');
});

it('links a provider to a signed-in account with authorizeWithProvider', async () => {
  const client = createGatehouse({ baseUrl: SERVER });
  const email = uniqueEmail();
  await client.auth.register({ email, password: PASSWORD, name: 'Linker' });
  await confirmEmail(email);
  await client.auth.login({ username: email, password: PASSWORD });
  const providerEmail = uniqueEmail();
  const { code, codeVerifier } = await authorizeWithProvider(client, 'test-idp', { redirectUri: `${REDIRECT_URI}/link`, openAuthSession: browserSession(providerEmail) });
  const identity = await client.me.identities.link({ code, codeVerifier, password: PASSWORD });
  expect(identity).toMatchObject({ provider: 'test-idp', email: providerEmail });
});
