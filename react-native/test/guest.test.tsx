/**
 * Guest mode through useSession against the live server (ANONYMOUS_SIGN_IN): try the app without
 * an account, make something, then upgrade and keep it; the upgraded account signs in by password.
 */
import { createGatehouse, isGatehouseError } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { GatehouseProvider, memorySessionStorage, useGatehouse, useSession, type Gatehouse, type UseSession } from '../src/index.js';
import { PASSWORD, SERVER, uniqueEmail } from './helpers.js';
import { sheetIdToken } from './native-app.js';

function SessionProbe({ onSession }: { onSession: (session: UseSession, client: Gatehouse) => void }) {
  const session = useSession();
  const client = useGatehouse();
  useEffect(() => {
    onSession(session, client);
  });
  return <Text testID="session">{`${session.status}:${session.user?.is_anonymous ? 'guest' : session.user?.email ?? '-'}`}</Text>;
}

it('signs in as a guest, is refused an API key, then upgrades keeping its agent and signs in with the password', async () => {
  let current: UseSession | undefined;
  let client: Gatehouse | undefined;
  render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s, c) => ((current = s), (client = c))} /></GatehouseProvider>);
  await waitFor(() => expect(screen.getByTestId('session').props.children).toBe('signed-out:-'));

  await act(async () => {
    await current!.signInAsGuest();
  });
  expect(screen.getByTestId('session').props.children).toBe('signed-in:guest');
  expect(current!.user).toMatchObject({ email: null, is_anonymous: true });
  const agent = await client!.agents.create({ name: 'Made as a guest', model: 'gpt-test' });
  const refused = await client!.apiKeys.create({ name: 'nope', scopes: ['agents:read'] }).catch((error: unknown) => error);
  expect(isGatehouseError(refused, 'guest_not_allowed')).toBe(true);

  const email = uniqueEmail();
  await act(async () => {
    await current!.upgradeGuest({ email, password: PASSWORD, name: 'Ada Upgraded' });
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
  expect(current!.user).toMatchObject({ email, is_anonymous: false, name: 'Ada Upgraded' });

  const again = createGatehouse({ baseUrl: SERVER });
  await again.auth.login({ username: email, password: PASSWORD });
  expect((await again.agents.list()).data.map((a) => a.id)).toContain(agent.id);
});

it("a guest that signs in with a native sheet's ID token becomes that account, keeping its id", async () => {
  let current: UseSession | undefined;
  render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (current = s)} /></GatehouseProvider>);
  await waitFor(() => expect(screen.getByTestId('session').props.children).toBe('signed-out:-'));
  await act(async () => {
    await current!.signInAsGuest();
  });
  const guestId = current!.user!.id;
  const email = uniqueEmail();
  const idToken = await sheetIdToken(email);
  await act(async () => {
    await current!.signInWithIdToken({ provider: 'test-idp', idToken });
  });
  expect(screen.getByTestId('session').props.children).toBe(`signed-in:${email}`);
  expect(current!.user).toMatchObject({ id: guestId, email, is_anonymous: false });
});
