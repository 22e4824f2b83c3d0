/**
 * The session as a mobile user lives it, against the live server: cold starts with and without
 * network, coming back to the foreground with an expired token, a session revoked elsewhere, a
 * 503 while refreshing, and mailed links that open the app.
 */
import { createGatehouse, isGatehouseError, type FetchLike } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { StrictMode, useEffect } from 'react';
import { AppState, Text } from 'react-native';
import { GatehouseProvider, handleAuthLink, memorySessionStorage, mfaChallengeOf, useAgents, useChats, useMessages, useSession, type SessionStorage, type UseSession } from '../src/index.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { confirmEmail, mailedLink, PASSWORD, returningUser, SERVER, sessionIdOf, totpNow, uniqueEmail } from './helpers.js';

/** Shows the session and hands it to the test. */
function SessionProbe({ onSession }: { onSession?: (session: UseSession) => void }) {
  const session = useSession();
  useEffect(() => {
    onSession?.(session);
  });
  return <Text testID="session">{`${session.status}:${session.user?.name ?? '-'}:${session.isStale ? 'stale' : 'fresh'}`}</Text>;
}

const sessionText = () => screen.getByTestId('session').props.children as string;

/** The listener the provider gave React Native's AppState (the mock jest-expo installs). */
function comeToForeground(): void {
  const calls = (AppState.addEventListener as jest.Mock).mock.calls.filter(([type]) => type === 'change');
  const listener = calls.at(-1)?.[1] as ((state: string) => void) | undefined;
  if (!listener) throw new Error('the provider did not listen to AppState');
  act(() => listener('active'));
}

let proxy: FaultProxy;
beforeEach(async () => {
  proxy = await startFaultProxy(SERVER);
  (AppState.addEventListener as jest.Mock).mockClear();
});
afterEach(() => proxy.close());

describe('cold start', () => {
  it('renders the stored user before any request completes, then revalidates in the background', async () => {
    const { storage } = await returningUser('Ada Cached');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let completed = 0;
    const slowFetch: FetchLike = async (input, init) => {
      await gate;
      const response = await fetch(input, init);
      completed++;
      return response;
    };
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={storage} options={{ fetch: slowFetch }}><SessionProbe /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Cached:stale'));
    expect(completed).toBe(0);
    release();
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Cached:fresh'));
    expect(completed).toBeGreaterThan(0);
  });

  it('stays signed in when it starts offline, and confirms the session once the network is back', async () => {
    const { storage } = await returningUser('Ada Offline');
    proxy.offline = true;
    let seen: UseSession | undefined;
    render(
      <GatehouseProvider baseUrl={proxy.base} tokenStore={storage} retry={{ baseMs: 50, maxMs: 200 }}>
        <SessionProbe onSession={(s) => (seen = s)} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(isGatehouseError(seen?.error, 'network_error')).toBe(true));
    expect(sessionText()).toBe('signed-in:Ada Offline:stale');
    // Retried with backoff meanwhile, and still signed in.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sessionText()).toBe('signed-in:Ada Offline:stale');
    proxy.offline = false;
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Offline:fresh'));
    expect(seen?.error).toBeNull();
  });

  it('starts signed out with nothing stored, without a request', async () => {
    render(<GatehouseProvider baseUrl={proxy.base} tokenStore={memorySessionStorage()}><SessionProbe /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    expect(proxy.requests).toEqual([]);
  });
});

describe('coming back to the foreground', () => {
  /** A clock the test moves: the SDK decides from it when the access token is due. */
  function fakeClock() {
    let offset = 0;
    return { now: () => Date.now() + offset, advance: (ms: number) => void (offset += ms) };
  }

  async function withChat(storage: SessionStorage): Promise<string> {
    const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
    const agent = await gh.agents.create({ name: 'Helper', model: 'gpt-4o' });
    return (await gh.chats.create({ agent_id: agent.id })).id;
  }

  function ThreeLists({ chatId }: { chatId: string }) {
    const agents = useAgents();
    const chats = useChats();
    const messages = useMessages(chatId);
    const loaded = [agents, chats, messages].every((list) => !list.loading && list.error === null);
    return <Text testID="lists">{loaded ? `${agents.items.length}/${chats.items.length}/${messages.items.length}` : 'loading'}</Text>;
  }

  it('after the access token expired, three mounted hooks and the provider share exactly one refresh', async () => {
    const { storage } = await returningUser();
    const chatId = await withChat(storage);
    const clock = fakeClock();
    render(
      <GatehouseProvider baseUrl={proxy.base} tokenStore={storage} options={{ now: clock.now }}>
        <SessionProbe />
        <ThreeLists chatId={chatId} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('lists').props.children).toBe('1/1/0'));
    const before = (await storage.get())!;
    expect(proxy.count('POST', '/v1/auth/refresh')).toBe(0);

    clock.advance(16 * 60_000); // past the 15-minute access token
    const listsBefore = proxy.count('GET', '/v1/agents');
    comeToForeground();
    await waitFor(() => expect(proxy.count('GET', '/v1/agents')).toBe(listsBefore + 1));
    await waitFor(() => expect(screen.getByTestId('lists').props.children).toBe('1/1/0'));
    expect(proxy.count('POST', '/v1/auth/refresh')).toBe(1);
    expect((await storage.get())!.refreshToken).not.toBe(before.refreshToken);
    expect(sessionText()).toMatch(/^signed-in:/);
  });

  it('refreshes once on foreground under StrictMode too (effects run, clean up and run again)', async () => {
    const { storage } = await returningUser('Ada Strict');
    const clock = fakeClock();
    render(
      <StrictMode>
        <GatehouseProvider baseUrl={proxy.base} tokenStore={storage} options={{ now: clock.now }}>
          <SessionProbe />
        </GatehouseProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Strict:fresh'));
    clock.advance(16 * 60_000);
    comeToForeground();
    await waitFor(() => expect(proxy.count('POST', '/v1/auth/refresh')).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(proxy.count('POST', '/v1/auth/refresh')).toBe(1);
    expect(sessionText()).toMatch(/^signed-in:Ada Strict/);
  });

  it('keeps the session through a 503 while refreshing, and retries until it succeeds', async () => {
    const { storage } = await returningUser('Ada Patient');
    const clock = fakeClock();
    let seen: UseSession | undefined;
    render(
      <GatehouseProvider baseUrl={proxy.base} tokenStore={storage} options={{ now: clock.now, maxRetries: 0 }} retry={{ baseMs: 50, maxMs: 200 }}>
        <SessionProbe onSession={(s) => (seen = s)} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Patient:fresh'));
    const before = (await storage.get())!;
    proxy.failNext('/v1/auth/refresh', 2);
    clock.advance(16 * 60_000);
    comeToForeground();
    await waitFor(() => expect(isGatehouseError(seen?.error, 'service_unavailable')).toBe(true));
    expect(sessionText()).toMatch(/^signed-in:Ada Patient/);
    await waitFor(() => expect(proxy.count('POST', '/v1/auth/refresh')).toBe(3)); // two refused, then through
    await waitFor(() => expect(seen?.error).toBeNull());
    expect(sessionText()).toBe('signed-in:Ada Patient:fresh');
    const after = (await storage.get())!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(clock.now());
  });
});

describe('the end of a session', () => {
  it('a revalidation still in flight when the user signs out does not sign them back in', async () => {
    const { storage } = await returningUser('Ada Leaving');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowMe: FetchLike = async (input, init) => {
      if (new URL(input).pathname === '/v1/users/me') await gate;
      return fetch(input, init);
    };
    // The server never hears of the sign-out (its answer is a 503), so the late answer is a 200.
    proxy.failNext('/v1/auth/logout', 5);
    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={proxy.base} tokenStore={storage} options={{ fetch: slowMe, maxRetries: 0 }}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Leaving:stale'));
    await act(() => seen!.signOut()); // while the cold start's GET /v1/users/me waits
    expect(sessionText()).toBe('signed-out:-:fresh');
    await act(async () => {
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(sessionText()).toBe('signed-out:-:fresh');
    expect(await storage.getUser()).toBeNull();
  });

  it('starts signed out, not loading forever, when the stored session cannot be read', async () => {
    const broken = { ...memorySessionStorage(), get: async () => Promise.reject(new Error('could not decrypt')) };
    render(<GatehouseProvider baseUrl={proxy.base} tokenStore={broken}><SessionProbe /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
  });

  it('a session revoked elsewhere ends in signed-out, with nothing left in storage', async () => {
    const { email, storage } = await returningUser('Ada Revoked');
    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={storage}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-in:Ada Revoked:fresh'));

    // The user signs out this phone from another device.
    const other = createGatehouse({ baseUrl: SERVER, tokenStore: memorySessionStorage() });
    await other.auth.login({ username: email, password: PASSWORD });
    await other.sessions.revoke(sessionIdOf((await storage.get())!.accessToken));

    await act(() => seen!.revalidate());
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    expect(await storage.get()).toBeNull();
    expect(await storage.getUser()).toBeNull();
  });

  it('signs up, signs out and signs in through the hook', async () => {
    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    const email = uniqueEmail();
    await act(() => seen!.signUp({ email, password: PASSWORD, name: 'Ada New' }));
    expect(sessionText()).toBe('signed-in:Ada New:fresh');
    await act(() => seen!.signOut());
    expect(sessionText()).toBe('signed-out:-:fresh');
    const refused = await seen!.signIn(email, 'Not-The-Password-1').catch((error: unknown) => error);
    expect(isGatehouseError(refused, 'invalid_credentials')).toBe(true);
    await act(() => seen!.signIn(email, PASSWORD));
    expect(sessionText()).toBe('signed-in:Ada New:fresh');
  });

  it('signs in to an account with a second factor: signIn rejects with mfa_required, verifyMfa finishes', async () => {
    // The account turns TOTP on elsewhere (the web dashboard, say).
    const { email } = await returningUser('Ada Two-Factor');
    await confirmEmail(email);
    const web = createGatehouse({ baseUrl: SERVER });
    await web.auth.login({ username: email, password: PASSWORD });
    const { otpauth_url: url } = await web.me.mfa.enrolTotp({ password: PASSWORD });
    const { recovery_codes: codes } = await web.me.mfa.confirmTotp({ code: totpNow(url) });

    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    const needed = await seen!.signIn(email, PASSWORD).catch((error: unknown) => error);
    const challenge = mfaChallengeOf(needed);
    expect(challenge?.methods).toEqual(['totp', 'recovery_code']);
    expect(sessionText()).toBe('signed-out:-:fresh');
    const wrong = await seen!.verifyMfa(challenge!.mfaToken, { recovery_code: 'wrong-wrong' }).catch((error: unknown) => error);
    expect(isGatehouseError(wrong, 'invalid_credentials')).toBe(true);
    await act(() => seen!.verifyMfa(challenge!.mfaToken, { recovery_code: codes[0]! }));
    expect(sessionText()).toBe('signed-in:Ada Two-Factor:fresh');
  });
});

describe('mailed links that open the app (APP_LINK_URL)', () => {
  it('completes email verification and a password reset through handleAuthLink', async () => {
    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    const email = uniqueEmail();
    await act(() => seen!.signUp({ email, password: PASSWORD, name: 'Ada Linked' }));
    expect(seen!.user?.email_verified).toBe(false);

    const verifyLink = await mailedLink(email, 'verify-email');
    expect(verifyLink).toMatch(/^gatehouse-example:\/\/auth\/verify-email\?token=gthv_/);
    await act(async () => expect(await seen!.handleAuthLink(verifyLink)).toEqual({ kind: 'email-verified' }));
    expect(seen!.user?.email_verified).toBe(true);
    const again = await seen!.handleAuthLink(verifyLink).catch((error: unknown) => error);
    expect(isGatehouseError(again, 'invalid_token')).toBe(true); // single use

    // An API key made before the reset: the reset revokes it too (the default, as in the dashboard).
    const owner = createGatehouse({ baseUrl: SERVER, tokenStore: memorySessionStorage() });
    await owner.auth.login({ username: email, password: PASSWORD });
    const key = (await owner.apiKeys.create({ name: 'before the reset', scopes: ['agents:read'] })).key ?? 'no key shown';
    await createGatehouse({ baseUrl: SERVER, apiKey: key }).agents.list();

    await createGatehouse({ baseUrl: SERVER }).auth.forgotPassword({ email });
    const resetLink = await mailedLink(email, 'reset-password');
    const reset = await seen!.handleAuthLink(resetLink);
    if (reset.kind !== 'reset-password') throw new Error(`expected a reset link, got ${reset.kind}`);
    await reset.complete('Brand-New-Secret-77');
    const keyAfter = await createGatehouse({ baseUrl: SERVER, apiKey: key }).agents.list().catch((error: unknown) => error);
    expect(isGatehouseError(keyAfter, 'invalid_token')).toBe(true);
    // A reset signs out every session: this one ends at its next call; the new password works.
    await act(() => seen!.revalidate());
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    await act(() => seen!.signIn(email, 'Brand-New-Secret-77'));
    expect(sessionText()).toBe('signed-in:Ada Linked:fresh');
    expect(await seen!.handleAuthLink('gatehouse-example://chat/42')).toEqual({ kind: 'not-an-auth-link' });
  });

  it('confirms a change of email with the signed-in session; signed out, the link asks for a sign-in and stays usable', async () => {
    let seen: UseSession | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={memorySessionStorage()}><SessionProbe onSession={(s) => (seen = s)} /></GatehouseProvider>);
    await waitFor(() => expect(sessionText()).toBe('signed-out:-:fresh'));
    const email = uniqueEmail();
    await act(() => seen!.signUp({ email, password: PASSWORD, name: 'Ada Moving' }));
    const next = uniqueEmail();
    const web = createGatehouse({ baseUrl: SERVER });
    await web.auth.login({ username: email, password: PASSWORD });
    await web.me.changeEmail({ email: next, password: PASSWORD });
    const link = await mailedLink(next, 'verify-email');
    expect(link).toMatch(/^gatehouse-example:\/\/auth\/verify-email\?token=gthv_/);

    // Opened where nobody is signed in (whoever reads a mistyped address's inbox, too): refused, not spent.
    const refused = await handleAuthLink(createGatehouse({ baseUrl: SERVER }), link).catch((error: unknown) => error);
    expect(isGatehouseError(refused, 'authentication_required')).toBe(true);
    expect(seen!.user?.email).toBe(email);

    // In the app signed in as the owner: the session goes with it, and the user shows the new address.
    await act(async () => expect(await seen!.handleAuthLink(link)).toEqual({ kind: 'email-verified' }));
    expect(seen!.user).toMatchObject({ email: next, email_verified: true });
  });
});
