/**
 * Refresh-token reuse against a live server: a rotated refresh token presented again after the
 * server's 10 s grace window revokes the whole session. The SDK must surface that as a typed
 * error and clear its store, for the client holding the stale token and for the legitimate one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, memoryTokenStore, type StoredSession } from '../src/index.js';
import { rejection, signUp } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server?.stop());

it('racing refreshes within the grace window both succeed (two tabs)', async () => {
  const { gh, email } = await signUp(server);
  const stale = (await gh.session.get())!;
  await gh.auth.refresh();
  // A second tab still holding the old pair refreshes at once: the server allows it within 10 s.
  const tab = createGatehouse({ baseUrl: server.base, tokenStore: memoryTokenStore({ ...stale, expiresAt: 0 }) });
  expect((await tab.me.get()).email).toBe(email);
  expect((await gh.me.get()).email).toBe(email);
});

it('a reused refresh token ends the session: both holders get a typed error and an empty store', async () => {
  const { gh, email, password } = await signUp(server);
  const changes: (StoredSession | null)[] = [];
  const original = (await gh.session.get())!;
  await gh.auth.refresh();
  const current = (await gh.session.get())!;
  expect(current.refreshToken).not.toBe(original.refreshToken);

  // Past the grace window, a copy of the old refresh token shows up (a thief, or a restored backup).
  await new Promise((r) => setTimeout(r, 10_500));
  const thief = createGatehouse({ baseUrl: server.base, tokenStore: memoryTokenStore({ ...original, expiresAt: 0 }), onSessionChange: (s) => changes.push(s) });
  const error = await rejection(thief.me.get());
  expect(isGatehouseError(error, 'invalid_token')).toBe(true);
  expect(error).toMatchObject({ status: 401, requestId: expect.stringMatching(/^req_/), detail: expect.stringMatching(/already used/) });
  expect(await thief.session.get()).toBeNull();
  expect(changes).toEqual([null]);

  // The legitimate client's session was revoked with it: its next call fails the same way.
  const legit = await rejection(gh.me.get());
  expect(legit).toMatchObject({ code: 'invalid_token', status: 401 });
  expect(await gh.session.get()).toBeNull();

  // Logging in again works, and the account's security log names what happened.
  await gh.auth.login({ username: email, password });
  const events = await gh.me.securityEvents({ limit: 20 });
  expect(events.data.map((e) => e.type)).toContain('refresh_token_reused');
}, 30_000);
