/**
 * Hermes has no Web Crypto: without help the SDK would send creating calls without an
 * Idempotency-Key, and so never retry them. The provider hands the SDK expo-crypto's random bytes
 * (mocked here as Expo's own module would answer); a created agent's request carries a v4 key,
 * against the live server.
 */
import type { FetchLike, Gatehouse } from '@gatehouse/sdk';
import { render, waitFor } from '@testing-library/react-native';
import { GatehouseProvider, useGatehouse } from '../src/index.js';
import { returningUser, SERVER } from './helpers.js';

jest.mock('expo-crypto', () => ({ getRandomBytes: (n: number) => new Uint8Array(jest.requireActual('node:crypto').randomBytes(n)) }), { virtual: true });

function Probe({ onClient }: { onClient: (client: Gatehouse) => void }) {
  onClient(useGatehouse());
  return null;
}

it('sends the Idempotency-Key of creating calls where the runtime has no Web Crypto (Hermes), from expo-crypto', async () => {
  const { storage } = await returningUser();
  const sent: Array<Record<string, string>> = [];
  const recording: FetchLike = (input, init) => {
    if (init.method === 'POST') sent.push({ ...(init.headers as Record<string, string>) });
    return fetch(input, init);
  };
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true, writable: true });
  try {
    let client: Gatehouse | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={storage} options={{ fetch: recording }}><Probe onClient={(c) => (client = c)} /></GatehouseProvider>);
    await waitFor(() => expect(client).toBeDefined());
    const agent = await client!.agents.create({ name: 'Keyed', model: 'gpt-4o' });
    expect(agent.name).toBe('Keyed');
    expect(sent.at(-1)!['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  } finally {
    if (saved) Object.defineProperty(globalThis, 'crypto', saved);
  }
});
