/**
 * Keeping the session alive against a live server with ACCESS_TOKEN_TTL=60: refresh before
 * expiry (the SDK's clock is faked forward), single-flight refresh for concurrent calls, one
 * refresh-and-retry on 401, and what a failed refresh does to the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, memoryTokenStore, webStorageTokenStore, type FetchLike, type StoredSession } from '../src/index.js';
import { recordingFetch, rejection, signUp } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer({ ACCESS_TOKEN_TTL: '60' });
});
afterAll(() => server?.stop());

/** A clock the test moves by hand. */
function fakeClock() {
  let t = Date.now();
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** Same header, payload and length, broken signature: the server answers 401 invalid_token. */
function tamper(jwt: string): string {
  const [header, payload, signature] = jwt.split('.');
  const flipped = (signature![0] === 'A' ? 'B' : 'A') + signature!.slice(1);
  return [header, payload, flipped].join('.');
}

describe('refresh before expiry', () => {
  it('refreshes once the access token is within the margin of expiry (expires_in from login), then not again', async () => {
    const clock = fakeClock();
    const recorder = recordingFetch();
    const { gh } = await signUp(server, { now: clock.now, fetch: recorder.fetch });
    const first = (await gh.session.get())!;
    expect(first.expiresAt).toBe(clock.now() + 60_000);

    await gh.me.get();
    clock.advance(29_000); // 31 s left: outside the 30 s margin
    await gh.me.get();
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(0);

    clock.advance(2_000); // 29 s left
    await gh.me.get();
    expect(recorder.calls.slice(-2).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(['POST /v1/auth/refresh 200', 'GET /v1/users/me 200']);
    const second = (await gh.session.get())!;
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.expiresAt).toBe(clock.now() + 60_000);
    // The /users/me call went out with the new token.
    expect(recorder.calls.at(-1)!.headers.authorization).toBe(`Bearer ${second.accessToken}`);

    await gh.usage.get();
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(1);
  });

  it('lets concurrent calls share one refresh', async () => {
    const clock = fakeClock();
    const recorder = recordingFetch();
    const { gh } = await signUp(server, { now: clock.now, fetch: recorder.fetch });
    clock.advance(45_000);
    const results = await Promise.all([gh.me.get(), gh.agents.list(), gh.usage.get(), gh.sessions.list(), gh.apiKeys.list(), gh.chats.list()]);
    expect(results).toHaveLength(6);
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(1);
  });

  it('session.accessToken() refreshes a due token ahead of need, shared with concurrent calls; null when signed out', async () => {
    const clock = fakeClock();
    const recorder = recordingFetch();
    const { gh } = await signUp(server, { now: clock.now, fetch: recorder.fetch });
    const before = (await gh.session.get())!;
    expect(await gh.session.accessToken()).toBe(before.accessToken); // fresh: no request
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(0);
    clock.advance(45_000);
    const [token] = await Promise.all([gh.session.accessToken(), gh.session.accessToken(), gh.me.get()]);
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(1);
    expect(token).toBe((await gh.session.get())!.accessToken);
    expect(token).not.toBe(before.accessToken);
    await gh.auth.logout();
    expect(await gh.session.accessToken()).toBeNull();
  });

  it('follows a refresh made by another client sharing the store (another tab) instead of refreshing again', async () => {
    const clock = fakeClock();
    const storage = new Map<string, string>();
    const shared = { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v), removeItem: (k: string) => void storage.delete(k) };
    const tabA = recordingFetch();
    const tabB = recordingFetch();
    const a = await signUp(server, { now: clock.now, fetch: tabA.fetch, tokenStore: webStorageTokenStore(shared, 'gh') });
    const b = createGatehouse({ baseUrl: server.base, now: clock.now, fetch: tabB.fetch, tokenStore: webStorageTokenStore(shared, 'gh') });
    expect(JSON.parse(storage.get('gh')!)).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect((await b.me.get()).email).toBe(a.email); // "after a reload": signed in from storage

    clock.advance(45_000);
    await b.me.get();
    await a.gh.me.get();
    expect(tabB.count('POST', '/v1/auth/refresh')).toBe(1);
    expect(tabA.count('POST', '/v1/auth/refresh')).toBe(0);
  });

  it('keeps the session and uses the still-valid token when a refresh fails for a transient reason', async () => {
    const clock = fakeClock();
    let offline = false;
    const flaky: FetchLike = (input, init) => (offline && input.endsWith('/v1/auth/refresh') ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
    const { gh } = await signUp(server, { now: clock.now, fetch: flaky });
    const before = await gh.session.get();
    clock.advance(45_000); // within the margin, not expired
    offline = true;
    expect((await gh.me.get()).id).toBeDefined();
    expect(await gh.session.get()).toEqual(before);

    clock.advance(20_000); // expired by the client's clock: nothing valid to fall back on
    expect(await rejection(gh.me.get())).toMatchObject({ code: 'network_error', status: 0 });
    expect(await gh.session.get()).toEqual(before);
    offline = false;
    expect((await gh.me.get()).id).toBeDefined();
  });
});

describe('refresh after a 401', () => {
  it('refreshes once on 401 invalid_token and retries the call with the new token', async () => {
    const recorder = recordingFetch();
    const { gh, store } = await signUp(server, { fetch: recorder.fetch });
    const session = (await gh.session.get())!;
    await store.set({ ...session, accessToken: tamper(session.accessToken) });

    const me = await gh.me.get();
    expect(me.id).toMatch(/^usr_/);
    expect(recorder.calls.slice(-3).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'GET /v1/users/me 401',
      'POST /v1/auth/refresh 200',
      'GET /v1/users/me 200',
    ]);
  });

  it('does the same for 401 token_expired (the server saw the token as expired, e.g. clock skew)', async () => {
    const recorder = recordingFetch();
    let expireNext = true;
    // The first /users/me answer is replaced by the server's token_expired problem.
    const skewed: FetchLike = async (input, init) => {
      if (expireNext && input.endsWith('/v1/users/me')) {
        expireNext = false;
        const problem = { type: 'about:blank', title: 'Token expired', status: 401, detail: 'The access token has expired; refresh it.', code: 'token_expired', request_id: 'req_test' };
        return new Response(JSON.stringify(problem), { status: 401, headers: { 'content-type': 'application/problem+json' } });
      }
      return recorder.fetch(input, init);
    };
    const { gh } = await signUp(server, { fetch: skewed });
    expect((await gh.me.get()).id).toMatch(/^usr_/);
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(1);
  });

  it('shares one refresh among concurrent calls that all got 401', async () => {
    const recorder = recordingFetch();
    const { gh, store } = await signUp(server, { fetch: recorder.fetch });
    const session = (await gh.session.get())!;
    await store.set({ ...session, accessToken: tamper(session.accessToken) });
    await Promise.all([gh.me.get(), gh.usage.get(), gh.agents.list(), gh.webhooks.list()]);
    expect(recorder.count('POST', '/v1/auth/refresh')).toBe(1);
  });

  it('does not try to refresh an API key', async () => {
    const { gh } = await signUp(server);
    const { key, id } = await gh.apiKeys.create({ name: 'revoked soon' });
    await gh.apiKeys.revoke(id);
    const recorder = recordingFetch();
    const bot = createGatehouse({ baseUrl: server.base, apiKey: key!, fetch: recorder.fetch });
    expect(await rejection(bot.agents.list())).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(recorder.calls.map((c) => c.path)).toEqual(['/v1/agents']);
  });
});

describe('a failed refresh', () => {
  it('clears the store, tells onSessionChange and throws the typed error', async () => {
    const changes: (StoredSession | null)[] = [];
    const { gh, store } = await signUp(server, { onSessionChange: (s) => changes.push(s) });
    const session = (await gh.session.get())!;
    await store.set({ ...session, expiresAt: 0, refreshToken: `${session.refreshToken.slice(0, -4)}AAAA` });

    const error = await rejection(gh.me.get());
    expect(isGatehouseError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_token', status: 401, requestId: expect.stringMatching(/^req_/) });
    expect(await gh.session.get()).toBeNull();
    expect(changes.at(-1)).toBeNull();

    // Signed out now: calls go without a credential and get the server's 401.
    expect(await rejection(gh.me.get())).toMatchObject({ code: 'authentication_required', status: 401 });
    expect(await rejection(gh.auth.refresh())).toMatchObject({ code: 'not_authenticated', status: 0 });
  });

  it('logout still clears the store when the server had already ended the session', async () => {
    const { gh, email, password } = await signUp(server);
    const other = createGatehouse({ baseUrl: server.base, tokenStore: memoryTokenStore() });
    await other.auth.login({ username: email, password });
    const current = (await gh.sessions.list()).data.find((s) => s.current)!;
    await other.sessions.revoke(current.id);
    await gh.auth.logout();
    expect(await gh.session.get()).toBeNull();
  });
});

// The server's own expiry, on its real clock: 65 s of waiting, so only with SDK_SLOW_TESTS=1.
describe.runIf(process.env.SDK_SLOW_TESTS)('real expiry (slow)', () => {
  it('gets 401 token_expired from the server for an expired token, refreshes and retries', async () => {
    const recorder = recordingFetch();
    // No proactive refresh: the SDK's clock stands still, so the server is the one to notice.
    const frozen = Date.now();
    const { gh } = await signUp(server, { fetch: recorder.fetch, now: () => frozen });
    await new Promise((r) => setTimeout(r, 66_000));
    expect((await gh.me.get()).id).toMatch(/^usr_/);
    const codes = recorder.calls.slice(-3).map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(codes).toEqual(['GET /v1/users/me 401', 'POST /v1/auth/refresh 200', 'GET /v1/users/me 200']);
  }, 90_000);
});
