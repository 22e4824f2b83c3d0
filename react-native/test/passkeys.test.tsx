/**
 * Passkeys as an app uses them, against the live server: a software authenticator stands in for
 * the platform's sheet (react-native-passkeys' create/get speak the same WebAuthn JSON), answering
 * as the server's own origin, the relying party the suite's server has by default.
 */
import { createGatehouse, isGatehouseError } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { addPasskey, GatehouseProvider, memorySessionStorage, useSession, type PasskeyAuthenticator, type UseSession } from '../src/index.js';
import { SoftAuthenticator } from '../../server/test/soft-authenticator.js';
import { confirmEmail, PASSWORD, SERVER, uniqueEmail } from './helpers.js';

/** The platform's sheet: a software authenticator; `dismiss` makes it answer null (closed). */
function sheet(authenticator: SoftAuthenticator, dismiss = false): PasskeyAuthenticator {
  return {
    create: async (options) => (dismiss ? null : authenticator.create(options as never)),
    get: async (options) => (dismiss ? null : authenticator.get(options as never)),
  };
}

function SessionProbe({ onSession }: { onSession: (session: UseSession) => void }) {
  const session = useSession();
  useEffect(() => {
    onSession(session);
  });
  return <Text testID="session">{`${session.status}:${session.user?.email ?? '-'}`}</Text>;
}

it('adds a passkey in settings, then signs in with it alone', async () => {
  const client = createGatehouse({ baseUrl: SERVER });
  const email = uniqueEmail();
  await client.auth.register({ email, password: PASSWORD, name: 'Passkey Person' });
  await confirmEmail(email);
  await client.auth.login({ username: email, password: PASSWORD });
  const authenticator = new SoftAuthenticator(SERVER);
  const added = await addPasskey(client, { password: PASSWORD, name: 'Pixel', passkeys: sheet(authenticator) });
  expect(added.name).toBe('Pixel');
  const closed = await addPasskey(client, { password: PASSWORD, passkeys: sheet(authenticator, true) }).catch((e: unknown) => e);
  expect(isGatehouseError(closed, 'aborted')).toBe(true);

  let current: UseSession | undefined;
  render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (current = s)} /></GatehouseProvider>);
  await waitFor(() => expect(screen.getByTestId('session').props.children).toBe('signed-out:-'));
  let dismissed: unknown;
  await act(async () => {
    dismissed = await current!.signInWithPasskey({ passkeys: sheet(authenticator, true) }).catch((e: unknown) => e);
  });
  expect(isGatehouseError(dismissed, 'aborted')).toBe(true);
  await act(async () => {
    await current!.signInWithPasskey({ passkeys: sheet(authenticator) });
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
});
