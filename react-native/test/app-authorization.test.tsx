/**
 * An app that uses Gatehouse as its authorization server, as a React Native app does it, against
 * the suite's live server: authorizeInBrowser through a browser session (played by a fetch-only
 * browser in which the person allows or denies), and useDeviceAuthorization polling to a token
 * while the person allows on another device.
 */
import { createGatehouse, memoryTokenStore, type FetchLike, type Gatehouse } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { authorizeInBrowser, createAuthorizationClient, useDeviceAuthorization, type AuthorizationClient, type OpenAuthSession, type UseDeviceAuthorization } from '../src/index.js';
import { answerInBrowser, browser } from '../../server/test/oauth-browser.js';
import { PASSWORD, SERVER, uniqueEmail } from './helpers.js';

const REDIRECT_URI = 'com.example.pocketagents:/oauth';
let app: AuthorizationClient;

beforeAll(async () => {
  const owner = createGatehouse({ baseUrl: SERVER, tokenStore: memoryTokenStore() });
  const email = uniqueEmail();
  await owner.auth.register({ email, password: PASSWORD, name: 'App Maker' });
  await owner.auth.login({ username: email, password: PASSWORD });
  const registered = await owner.oauth.apps.create({ name: 'Pocket Agents', type: 'public', redirect_uris: [REDIRECT_URI], scopes: ['agents:read', 'chats:read'] });
  app = createAuthorizationClient({ issuer: SERVER, clientId: registered.id, redirectUri: REDIRECT_URI });
});

/** A person signed in, in a browser of their own. */
async function person(): Promise<{ go: ReturnType<typeof browser>; gh: Gatehouse }> {
  const go = browser();
  const gh = createGatehouse({ baseUrl: SERVER, tokenStore: memoryTokenStore(), fetch: go as FetchLike });
  const email = uniqueEmail();
  await gh.auth.register({ email, password: PASSWORD, name: 'Person' });
  await gh.auth.login({ username: email, password: PASSWORD });
  return { go, gh };
}

/** The browser session: the person answers on the consent step, and the session ends at the app's link. */
const browserSession = (decision: 'allow' | 'deny'): OpenAuthSession => async (url, redirectUri) => {
  const who = await person();
  const landed = await answerInBrowser({ base: SERVER, go: who.go, url, decision, decide: (uid, answer) => who.gh.oauth.decide(uid, { decision: answer }) });
  expect(landed.startsWith(redirectUri)).toBe(true);
  return { type: 'success', url: landed };
};

const agentsStatus = (token: string) => fetch(`${SERVER}/v1/agents`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

it('authorizeInBrowser: the person allows, the code becomes a token that reads their agents', async () => {
  const tokens = await authorizeInBrowser(app, { scope: 'agents:read', openAuthSession: browserSession('allow') });
  expect(tokens.scope).toBe('agents:read');
  expect(await agentsStatus(tokens.access_token)).toBe(200);
});

it('authorizeInBrowser rejects with access_denied when the person denies or closes the browser', async () => {
  await expect(authorizeInBrowser(app, { scope: 'agents:read', openAuthSession: browserSession('deny') })).rejects.toMatchObject({ code: 'access_denied' });
  await expect(authorizeInBrowser(app, { scope: 'agents:read', openAuthSession: async () => ({ type: 'cancel' }) })).rejects.toMatchObject({ code: 'access_denied' });
});

function DeviceScreen({ onState }: { onState: (state: UseDeviceAuthorization) => void }) {
  const state = useDeviceAuthorization(app, { scope: 'chats:read' });
  useEffect(() => {
    onState(state);
  });
  return <Text testID="device">{`${state.status}:${state.device?.userCode ?? '-'}`}</Text>;
}

it('useDeviceAuthorization shows a code, polls while the person allows elsewhere, and ends with a token', async () => {
  let current: UseDeviceAuthorization | undefined;
  render(<DeviceScreen onState={(s) => (current = s)} />);
  expect(screen.getByTestId('device').props.children).toBe('idle:-');
  act(() => current!.start());
  await waitFor(() => expect(current!.status).toBe('waiting'));
  const device = current!.device!;
  expect(screen.getByTestId('device').props.children).toBe(`waiting:${device.userCode}`);

  // On another device: the verification page with the code filled in, the confirmation, the consent.
  const who = await person();
  const page = await (await who.go(device.verificationUriComplete!)).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
  const confirmed = await who.go(device.verificationUri, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf: field('xsrf'), user_code: field('user_code'), confirm: 'yes' }).toString(),
  });
  const end = await answerInBrowser({ base: SERVER, go: who.go, url: confirmed.headers.get('location')!, decision: 'allow', decide: (uid, answer) => who.gh.oauth.decide(uid, { decision: answer }) });
  expect(end).toContain('Device connected');

  await waitFor(() => expect(current!.status).toBe('authorized'), { timeout: 20_000 });
  expect(current!.tokens!.scope).toBe('chats:read');
  const chats = await fetch(`${SERVER}/v1/chats`, { headers: { authorization: `Bearer ${current!.tokens!.access_token}` } });
  expect(chats.status).toBe(200);
}, 30_000);
