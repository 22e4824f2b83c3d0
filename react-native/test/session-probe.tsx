/**
 * The app as a test renders it: a provider on a fresh memory store, and a probe that shows
 * `status:email` and hands the test the live `useSession()` (and the client) after each render.
 */
import { render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { GatehouseProvider, memorySessionStorage, useGatehouse, useSession, type Gatehouse, type UseSession } from '../src/index.js';
import { SERVER } from './helpers.js';

function SessionProbe({ onSession }: { onSession: (session: UseSession, client: Gatehouse) => void }) {
  const session = useSession();
  const client = useGatehouse();
  useEffect(() => {
    onSession(session, client);
  });
  return <Text testID="session">{`${session.status}:${session.user?.email ?? '-'}`}</Text>;
}

/** Renders the app signed out and waits until it says so. */
export async function renderSignedOutApp(): Promise<{ session: () => UseSession; client: () => Gatehouse }> {
  let current: UseSession | undefined;
  let gatehouse: Gatehouse | undefined;
  render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s, c) => ((current = s), (gatehouse = c))} /></GatehouseProvider>);
  await waitFor(() => expect(screen.getByTestId('session').props.children).toBe('signed-out:-'));
  return { session: () => current!, client: () => gatehouse! };
}

/** What the probe shows now: `status:email`. */
export const shownSession = () => screen.getByTestId('session').props.children as string;
