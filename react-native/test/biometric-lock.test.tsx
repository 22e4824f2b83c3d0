/**
 * The biometric lock against the live server. Only expo-local-authentication's native module is
 * substituted (no Face ID runs under Jest): the package's own JavaScript, `authenticateAsync`'s
 * wrapper included, runs as in an app, and the native side answers what the test queues. The
 * session is a real one; every request the client sends is recorded with whether it carried a
 * token. Time in the background is the provider's clock (`options.now`), moved by the test.
 */
import { createGatehouse, isGatehouseError, memoryTokenStore, type FetchLike } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { AppState, Text } from 'react-native';
import { GatehouseProvider, memorySessionStorage, useAgents, useBiometricLock, useGatehouse, useSession, type BiometricLockOptions, type Gatehouse, type SessionStorage, type UseBiometricLock, type UseSession } from '../src/index.js';
import { PASSWORD, returningUser, SERVER, uniqueEmail } from './helpers.js';

/** What the native prompt answers next, in order; it fails the test when asked unexpectedly. */
const nativeAnswers: Array<{ success: boolean; error?: string } | Promise<{ success: boolean; error?: string }>> = [];
const nativeCalls: Array<Record<string, unknown>> = [];
jest.mock('expo-local-authentication/build/ExpoLocalAuthentication', () => ({
  __esModule: true,
  default: {
    async authenticateAsync(options: Record<string, unknown>) {
      nativeCalls.push(options);
      const answer = nativeAnswers.shift();
      if (!answer) throw new Error('the native prompt was shown, but the test expected none');
      return answer;
    },
  },
}));

interface Seen {
  session: UseSession;
  lock: UseBiometricLock;
  client: Gatehouse;
}

function Probe({ onRender }: { onRender: (seen: Seen) => void }) {
  const session = useSession();
  const lock = useBiometricLock();
  const client = useGatehouse();
  const agents = useAgents();
  useEffect(() => {
    onRender({ session, lock, client });
  });
  const list = session.status === 'signed-in' && !agents.loading ? `${agents.items.length} agents` : 'no list';
  return <Text testID="probe">{`${session.status}:${session.user?.name ?? '-'}:${session.isStale ? 'stale' : 'fresh'}:${lock.error?.code ?? '-'}:${list}`}</Text>;
}
const shown = () => screen.getByTestId('probe').props.children as string;

/** Every request the client sent: "METHOD /path", and whether it carried a bearer token. */
function recordingFetch() {
  const requests: Array<{ request: string; withToken: boolean }> = [];
  const fetchLike: FetchLike = (input, init) => {
    requests.push({ request: `${init.method ?? 'GET'} ${new URL(input).pathname}`, withToken: new Headers(init.headers).has('authorization') });
    return fetch(input, init);
  };
  return { fetch: fetchLike, requests, withToken: () => requests.filter((r) => r.withToken).map((r) => r.request) };
}

/** The provider's clock: the SDK's token expiry and the lock's time in the background. */
function fakeClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (seconds: number) => void (offset += seconds * 1000) };
}

/** AppState as the phone reports it, to the listener the provider gave jest-expo's AppState mock. */
function appStateBecomes(state: 'active' | 'background' | 'inactive'): void {
  const listener = (AppState.addEventListener as jest.Mock).mock.calls.filter(([type]) => type === 'change').at(-1)?.[1] as ((s: string) => void) | undefined;
  if (!listener) throw new Error('the provider did not listen to AppState');
  act(() => listener(state));
}

/** Renders the app over `storage` with a lock; returns the last render's hooks. */
function startApp(storage: SessionStorage, lockOptions: BiometricLockOptions = {}, extra: { fetch?: FetchLike; now?: () => number } = {}) {
  const seen: { current?: Seen } = {};
  render(
    <GatehouseProvider baseUrl={SERVER} tokenStore={storage} biometricLock={lockOptions} options={extra}>
      <Probe onRender={(s) => (seen.current = s)} />
    </GatehouseProvider>,
  );
  return () => seen.current!;
}

beforeEach(() => {
  nativeAnswers.length = 0;
  nativeCalls.length = 0;
  (AppState.addEventListener as jest.Mock).mockClear();
});
afterEach(() => expect(nativeAnswers).toEqual([])); // every queued answer was asked for

it('a cold start over a stored session stays locked, with no request carrying its tokens, until the prompt passes', async () => {
  const { storage } = await returningUser('Ada Locked');
  const stored = (await storage.get())!;
  const net = recordingFetch();
  const seen = startApp(storage, { prompt: { promptMessage: 'Unlock Gatehouse Chat' } }, { fetch: net.fetch });
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  await act(() => new Promise((resolve) => setTimeout(resolve, 50))); // anything the start set going
  expect(net.requests).toEqual([]); // no revalidation, no refresh, no list

  // Pull to refresh while locked asks nothing (and, above all, does not sign out).
  await act(() => seen().session.revalidate());
  expect(shown()).toBe('locked:-:stale:-:no list');
  expect(net.requests).toEqual([]);

  // The app's own call finds no session in the client: it goes without a token and is refused.
  const own = await seen().client.agents.list().catch((error: unknown) => error);
  expect(isGatehouseError(own) && own.status).toBe(401);
  expect(net.withToken()).toEqual([]);

  // The person closes the prompt: still locked, still nothing sent with the tokens.
  nativeAnswers.push({ success: false, error: 'user_cancel' });
  let opened: boolean | undefined;
  await act(async () => void (opened = await seen().lock.unlock()));
  expect(opened).toBe(false);
  expect(shown()).toBe('locked:-:stale:biometric_cancelled:no list');
  expect(net.withToken()).toEqual([]);
  expect(await storage.get()).toEqual(stored);

  // Face ID passes: the cached user at once, then the server confirms it and the list loads.
  nativeAnswers.push({ success: true });
  await act(async () => void (opened = await seen().lock.unlock()));
  expect(opened).toBe(true);
  expect(shown()).toMatch(/^signed-in:Ada Locked:(stale|fresh):-:/);
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Locked:fresh:-:0 agents'));
  expect(net.withToken()).toEqual(expect.arrayContaining(['GET /v1/users/me', 'GET /v1/agents']));
  // The real wrapper of expo-local-authentication ran: the app's message, its default cancel label.
  expect(nativeCalls).toEqual([expect.objectContaining({ promptMessage: 'Unlock Gatehouse Chat', cancelLabel: 'Cancel' }), expect.objectContaining({ promptMessage: 'Unlock Gatehouse Chat' })]);
});

it('locks again after afterBackgroundSeconds in the background, not after less, and not for a moment of "inactive"', async () => {
  const { storage } = await returningUser('Ada Away');
  const clock = fakeClock();
  const net = recordingFetch();
  const seen = startApp(storage, { afterBackgroundSeconds: 300 }, { fetch: net.fetch, now: clock.now });
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  nativeAnswers.push({ success: true });
  await act(async () => void (await seen().lock.unlock()));
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Away:fresh:-:0 agents'));

  // Four minutes fifty-nine away: the app is as it was, and reloads its lists as usual.
  const listsBefore = net.withToken().filter((r) => r === 'GET /v1/agents').length;
  appStateBecomes('background');
  clock.advance(299);
  appStateBecomes('active');
  await waitFor(() => expect(net.withToken().filter((r) => r === 'GET /v1/agents').length).toBe(listsBefore + 1));
  expect(shown()).toMatch(/^signed-in:Ada Away:/);

  // The app switcher or Control Center for an hour is not leaving the app.
  appStateBecomes('inactive');
  clock.advance(3600);
  appStateBecomes('active');
  expect(shown()).toMatch(/^signed-in:Ada Away:/);

  // Sixteen minutes away (the access token has expired meanwhile): locked, and nothing is sent.
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Away:fresh:-:0 agents'));
  const sent = net.requests.length;
  appStateBecomes('background');
  clock.advance(16 * 60);
  appStateBecomes('active');
  expect(shown()).toBe('locked:-:stale:-:no list');
  await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
  expect(net.requests.length).toBe(sent); // no foreground refresh, no list reload

  // Unlocked, the expired token is refreshed once, and the session goes on.
  nativeAnswers.push({ success: true });
  await act(async () => void (await seen().lock.unlock()));
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Away:fresh:-:0 agents'));
  expect(net.requests.slice(sent).filter((r) => r.request === 'POST /v1/auth/refresh')).toHaveLength(1);
});

it("the prompt's own trip to the background (Android's PIN screen) does not lock again", async () => {
  const { storage } = await returningUser('Ada Pin');
  const seen = startApp(storage, { afterBackgroundSeconds: 0 });
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  let answer!: (result: { success: boolean }) => void;
  nativeAnswers.push(new Promise((resolve) => (answer = resolve)));
  let unlocking!: Promise<boolean>;
  act(() => void (unlocking = seen().lock.unlock()));
  await waitFor(() => expect(seen().lock.unlocking).toBe(true));
  appStateBecomes('background'); // the PIN activity covers the app
  answer({ success: true });
  await act(async () => expect(await unlocking).toBe(true));
  appStateBecomes('active');
  expect(shown()).toMatch(/^signed-in:Ada Pin:/);
  expect(seen().lock.unlocking).toBe(false);
});

it('a device clock set back while away locks too', async () => {
  const { storage } = await returningUser('Ada Timewarp');
  const clock = fakeClock();
  const seen = startApp(storage, { afterBackgroundSeconds: 300 }, { now: clock.now });
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  nativeAnswers.push({ success: true });
  await act(async () => void (await seen().lock.unlock()));
  await waitFor(() => expect(shown()).toMatch(/^signed-in:Ada Timewarp:fresh/));
  appStateBecomes('background');
  clock.advance(-3600);
  appStateBecomes('active');
  expect(shown()).toBe('locked:-:stale:-:no list');
});

it('a fresh sign-in is unlocked without a prompt, and locks on its next absence', async () => {
  const email = uniqueEmail();
  await createGatehouse({ baseUrl: SERVER }).auth.register({ email, password: PASSWORD, name: 'Ada Fresh' });
  const seen = startApp(memorySessionStorage(), { afterBackgroundSeconds: 0 });
  await waitFor(() => expect(shown()).toBe('signed-out:-:fresh:-:no list'));
  expect(seen().lock.locked).toBe(false);
  await act(async () => void (await seen().session.signIn(email, PASSWORD)));
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Fresh:fresh:-:0 agents'));
  expect(nativeCalls).toEqual([]);
  appStateBecomes('background');
  appStateBecomes('active'); // 0 seconds: every return locks
  expect(shown()).toBe('locked:-:stale:-:no list');
  // A "Lock" button does the same at once.
  nativeAnswers.push({ success: true });
  await act(async () => void (await seen().lock.unlock()));
  await waitFor(() => expect(shown()).toMatch(/^signed-in:Ada Fresh/));
  act(() => seen().lock.lock());
  expect(shown()).toBe('locked:-:stale:-:no list');
});

it('on a phone that cannot ask, stays locked with biometric_unavailable; signing out then ends the session and clears the device', async () => {
  const { storage } = await returningUser('Ada Unenrolled');
  const stored = (await storage.get())!;
  const seen = startApp(storage);
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  nativeAnswers.push({ success: false, error: 'not_enrolled' });
  let opened: boolean | undefined;
  await act(async () => void (opened = await seen().lock.unlock()));
  expect(opened).toBe(false);
  expect(shown()).toBe('locked:-:stale:biometric_unavailable:no list');

  await act(() => seen().session.signOut());
  expect(shown()).toBe('signed-out:-:fresh:-:no list');
  expect(await storage.get()).toBeNull();
  expect(await storage.getUser()).toBeNull();
  // Ended on the server too: the tokens the device held are refused.
  const afterwards = await createGatehouse({ baseUrl: SERVER, tokenStore: memoryTokenStore(stored) }).me.get().catch((error: unknown) => error);
  expect(isGatehouseError(afterwards) && afterwards.status).toBe(401);
});

it('signing in with the password instead of the prompt opens a new session, unlocked', async () => {
  const { email, storage } = await returningUser('Ada Password');
  const stored = (await storage.get())!;
  const seen = startApp(storage);
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  await act(async () => void (await seen().session.signIn(email, PASSWORD)));
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Password:fresh:-:0 agents'));
  expect(seen().lock.locked).toBe(false);
  expect((await storage.get())!.refreshToken).not.toBe(stored.refreshToken);
  expect(nativeCalls).toEqual([]);
});

it('whenUnavailable: "unlock" opens without a prompt on such a phone', async () => {
  const { storage } = await returningUser('Ada Convenience');
  const seen = startApp(storage, { whenUnavailable: 'unlock' });
  await waitFor(() => expect(shown()).toBe('locked:-:stale:-:no list'));
  nativeAnswers.push({ success: false, error: 'not_available' });
  await act(async () => void (await seen().lock.unlock()));
  await waitFor(() => expect(shown()).toBe('signed-in:Ada Convenience:fresh:-:0 agents'));
  // A person who closes a prompt that did show is still refused.
  act(() => seen().lock.lock());
  nativeAnswers.push({ success: false, error: 'user_cancel' });
  await act(async () => void (await seen().lock.unlock()));
  expect(shown()).toBe('locked:-:stale:biometric_cancelled:no list');
});

it('says how to install expo-local-authentication when the app asks for a lock without it', () => {
  jest.isolateModules(() => {
    jest.doMock('expo-local-authentication', () => {
      throw new Error("Cannot find module 'expo-local-authentication'");
    });
    const { createBiometricLock } = require('../src/biometric-lock.js') as typeof import('../src/biometric-lock.js');
    expect(() => createBiometricLock({}, Date.now)).toThrow(/needs expo-local-authentication: npx expo install expo-local-authentication/);
  });
});
