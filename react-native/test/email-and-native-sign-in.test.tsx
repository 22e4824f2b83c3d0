/**
 * The ways into an app without a password, through useSession against the live server: a mailed
 * code, a mailed link opening the app (handleAuthLink), and a native sheet's ID token with its
 * nonce (the suite's OpenID issuer stands in for Apple's and Google's sheets).
 */
import { isGatehouseError } from '@gatehouse/sdk';
import { act, screen } from '@testing-library/react-native';
import { createSignInNonce, type UseSession } from '../src/index.js';
import { mailedCode, mailedLink, uniqueEmail } from './helpers.js';
import { renderSignedOutApp } from './session-probe.js';
import { sheetIdToken } from './native-app.js';


it('signs in with a mailed code, making the account, and refuses a wrong one', async () => {
  const { session } = await renderSignedOutApp();
  const email = uniqueEmail();
  await act(async () => {
    await session().sendEmailCode(email);
  });
  const code = await mailedCode(email);
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  let refused: unknown;
  await act(async () => {
    refused = await session().signInWithEmailCode(email, wrong).catch((error) => error);
  });
  expect(isGatehouseError(refused, 'invalid_credentials')).toBe(true);
  expect(screen.getByTestId('session').props.children).toBe('signed-out:-');
  await act(async () => {
    await session().signInWithEmailCode(email, code);
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
  expect(session().user).toMatchObject({ email, email_verified: true });
});

it('signs in when a mailed sign-in link opens the app', async () => {
  const { session } = await renderSignedOutApp();
  const email = uniqueEmail();
  await act(async () => {
    await session().sendEmailCode(email);
  });
  const link = await mailedLink(email, 'sign-in');
  let result: Awaited<ReturnType<UseSession['handleAuthLink']>> | undefined;
  await act(async () => {
    result = await session().handleAuthLink(link);
  });
  expect(result).toMatchObject({ kind: 'signed-in', user: { email } });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
  // The link worked once.
  let again: unknown;
  await act(async () => {
    again = await session().handleAuthLink(link).catch((error) => error);
  });
  expect(isGatehouseError(again, 'invalid_token')).toBe(true);
});

it("signs in with a native sheet's ID token and the nonce, and refuses it with another nonce", async () => {
  const { session } = await renderSignedOutApp();
  const email = uniqueEmail();
  const { nonce, hashedNonce } = createSignInNonce();
  const idToken = await sheetIdToken(email, hashedNonce);
  let refused: unknown;
  await act(async () => {
    refused = await session().signInWithIdToken({ provider: 'test-idp', idToken, nonce: createSignInNonce().nonce }).catch((error) => error);
  });
  expect(isGatehouseError(refused, 'invalid_token')).toBe(true);
  await act(async () => {
    await session().signInWithIdToken({ provider: 'test-idp', idToken, nonce });
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
});
