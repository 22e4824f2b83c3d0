/**
 * createAuthorizationClient: an app someone else builds, with Gatehouse as its authorization
 * server, against a live server. Code + PKCE (the SDK's own challenge) with an app's own scheme
 * as the redirect, refresh rotation and reuse, revocation, a denial, a forged state, and the
 * device grant polled to the end while the person allows. The person answers with the SDK's
 * `oauth.decide`, in a "browser" that keeps the interaction's cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizationClient, createGatehouse, memoryTokenStore, type FetchLike, type Gatehouse } from '../src/index.js';
import { answerInBrowser, browser } from '../../server/test/oauth-flow.js';
import { rejection, signUp } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

const REDIRECT = 'com.example.deskapp:/oauth';

let server: LiveServer;
let clientId: string;
beforeAll(async () => {
  server = await startLiveServer();
  const owner = await signUp(server);
  clientId = (await owner.gh.oauth.apps.create({ name: 'Desk App', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read', 'agents:write'] })).id;
});
afterAll(async () => {
  await server?.stop();
});

/** A person signed in, in a browser of their own: the page's calls carry the interaction's cookie. */
async function person(): Promise<{ go: ReturnType<typeof browser>; gh: Gatehouse }> {
  const go = browser();
  const gh = createGatehouse({ baseUrl: server.base, tokenStore: memoryTokenStore(), fetch: go as FetchLike });
  const email = uniqueEmail();
  await gh.auth.register({ email, password: STRONG_PASSWORD, name: 'Person' });
  await gh.auth.login({ username: email, password: STRONG_PASSWORD });
  return { go, gh };
}

/** The person answers in their browser: the consent step's call goes through the SDK's `oauth.decide`. */
async function answer(who: Awaited<ReturnType<typeof person>>, url: string, decision: 'allow' | 'deny'): Promise<string> {
  return answerInBrowser({
    base: server.base, go: who.go, url, decision,
    decide: async (uid, answer) => {
      expect((await who.gh.oauth.interaction(uid)).client.name).toBe('Desk App');
      return who.gh.oauth.decide(uid, { decision: answer });
    },
  });
}

describe('createAuthorizationClient', () => {
  const app = () => createAuthorizationClient({ issuer: server.base, clientId, redirectUri: REDIRECT });
  const agentsStatus = (token: string) => fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  it('code + PKCE: the browser comes back to the app\'s scheme, the code becomes tokens that act within the allowed scope', async () => {
    const client = app();
    const start = await client.authorizationUrl({ scope: 'agents:read' });
    expect(new URL(start.url).searchParams.get('code_challenge_method')).toBe('S256');
    const callbackUrl = await answer(await person(), start.url, 'allow');
    expect(callbackUrl.startsWith(`${REDIRECT}?`)).toBe(true);
    const tokens = await client.exchangeCode({ callbackUrl, ...start });
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/bearer/i), scope: 'agents:read', refresh_token: expect.any(String) });
    expect(await agentsStatus(tokens.access_token)).toBe(200);

    // Refresh tokens rotate; the old one used again ends the grant.
    const refreshed = await client.refresh(tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await rejection(client.refresh(tokens.refresh_token!))).toMatchObject({ code: 'invalid_grant', status: 400 });
    expect(await agentsStatus(refreshed.access_token)).toBe(401);
  });

  it('revoking the refresh token ends the grant', async () => {
    const client = app();
    const start = await client.authorizationUrl({ scope: 'agents:read' });
    const tokens = await client.exchangeCode({ callbackUrl: await answer(await person(), start.url, 'allow'), ...start });
    await client.revoke(tokens.refresh_token!);
    expect(await rejection(client.refresh(tokens.refresh_token!))).toMatchObject({ code: 'invalid_grant' });
    expect(await agentsStatus(tokens.access_token)).toBe(401);
  });

  it('a code is good once: used again, it ends the grant it made', async () => {
    const client = app();
    const start = await client.authorizationUrl({ scope: 'agents:read' });
    const callbackUrl = await answer(await person(), start.url, 'allow');
    const tokens = await client.exchangeCode({ callbackUrl, ...start });
    expect(await rejection(client.exchangeCode({ callbackUrl, ...start }))).toMatchObject({ code: 'invalid_grant' });
    const fresh = await client.refresh(tokens.refresh_token!).catch(() => null);
    expect(fresh).toBeNull(); // the reused code ended the grant, refresh token included
  });

  it('a denial is access_denied; an answer with another state is refused before any exchange', async () => {
    const client = app();
    const start = await client.authorizationUrl({ scope: 'agents:read' });
    const callbackUrl = await answer(await person(), start.url, 'deny');
    expect(await rejection(client.exchangeCode({ callbackUrl, ...start }))).toMatchObject({ code: 'access_denied' });
    expect(await rejection(client.exchangeCode({ callbackUrl: `${REDIRECT}?code=x&state=forged`, ...start }))).toMatchObject({ code: 'invalid_state' });
  });

  it('the device grant: polls until the person allows in a browser, then tokens; a cancelled poll is aborted', async () => {
    const client = app();
    const device = await client.startDeviceAuthorization({ scope: 'agents:read' });
    expect(device.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const polled = client.pollDeviceAuthorization(device);
    const who = await person();
    const entry = await who.go(device.verificationUriComplete!);
    const page = await entry.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
    const confirmed = await who.go(device.verificationUri, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: field('xsrf'), user_code: field('user_code'), confirm: 'yes' }),
    });
    expect(await answer(who, confirmed.headers.get('location')!, 'allow')).toContain('Device connected');
    const tokens = await polled;
    expect(tokens.scope).toBe('agents:read');
    expect(await agentsStatus(tokens.access_token)).toBe(200);

    const controller = new AbortController();
    const waiting = client.pollDeviceAuthorization(await client.startDeviceAuthorization({ scope: 'agents:read' }), { signal: controller.signal });
    controller.abort();
    expect(await rejection(waiting)).toMatchObject({ code: 'aborted' });
  }, 30_000);
});
