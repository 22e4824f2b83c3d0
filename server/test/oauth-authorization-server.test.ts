/**
 * Gatehouse as an OAuth 2.1 authorization server, driven by an independent client library
 * (oauth4webapi) over real HTTP: discovery, authorization code with PKCE through the consent step,
 * a token bound to its resource and organization, refresh rotation and reuse detection,
 * revocation, introspection, and a denied consent. The browser is a cookie jar following
 * redirects by hand; the person's answer is the API the dashboard's consent page calls.
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../src/kernel/opaque-tokens.js';
import { freePort } from './free-port.js';
import { answerInBrowser, browser } from './oauth-browser.js';
import { insecure } from './oauth-flow.js';
import { createTestApp, limiterUsesRealTime, STRONG_PASSWORD, type TestApp } from './harness.js';

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

const REDIRECT = 'http://127.0.0.1:4999/callback';

describe('the OAuth 2.1 authorization server', () => {
  let t: TestApp;
  let base: string;
  let as: oauth.AuthorizationServer;
  let publicClient: oauth.Client;
  let confidentialClient: oauth.Client;
  let confidentialSecret: string;
  let owner: Awaited<ReturnType<TestApp['signUp']>>;

  const api = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    owner = await t.signUp();
    // Registered as Settings → OAuth apps does, by the organization's owner.
    const created = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Desk Assistant', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read', 'agents:write', 'chats:read'] });
    expect(created.status, await created.clone().text()).toBe(201);
    publicClient = { client_id: (await created.json() as { id: string }).id };
    const confidential = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Reporting Service', type: 'confidential', redirect_uris: [REDIRECT], scopes: ['agents:read'] });
    const body = await confidential.json() as { id: string; client_secret: string };
    confidentialClient = { client_id: body.id };
    confidentialSecret = body.client_secret;
    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
  });

  afterAll(async () => {
    await t?.app.close();
    await t?.deps.close();
  });

  /** A person signs in and is sent through the authorization up to the consent step. */
  async function consentStep(client: oauth.Client, options: { scope: string; resource?: string; session?: string }) {
    const person = options.session ?? (await t.signUp()).tokens.access_token;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: options.scope, state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      ...(options.resource ? { resource: options.resource } : {}),
    }).toString();
    const go = browser();
    const toInteraction = await go(url);
    expect(toInteraction.status).toBe(303);
    const interaction = new URL(toInteraction.headers.get('location')!, base);
    expect(interaction.pathname).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
    const details = await go(`${interaction}/details`, { headers: { authorization: `Bearer ${person}` } });
    expect(details.status, await details.clone().text()).toBe(200);
    const decide = (body: Record<string, unknown>) => go(`${interaction}/decision`, {
      method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    return { go, decide, verifier, state, person, details: await details.json() };
  }

  /** The consent step and the person's answer; returns where the browser lands. */
  async function authorize(client: oauth.Client, options: { scope: string; resource?: string; decision?: 'allow' | 'deny'; session?: string; organization?: string }) {
    const step = await consentStep(client, options);
    const decided = await step.decide({ decision: options.decision ?? 'allow', ...(options.organization ? { organization_id: options.organization } : {}) });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const resumed = await step.go((await decided.json() as { redirect_to: string }).redirect_to);
    expect(resumed.status).toBe(303);
    return { landed: new URL(resumed.headers.get('location')!), verifier: step.verifier, state: step.state, details: step.details, person: step.person };
  }

  async function tokensFor(client: oauth.Client, auth: oauth.ClientAuth, options: { scope: string; resource?: string }) {
    const { landed, verifier, state, person } = await authorize(client, options);
    const params = oauth.validateAuthResponse(as, client, landed, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, {
      ...insecure, ...(options.resource ? { additionalParameters: { resource: options.resource } } : {}),
    });
    return { tokens: await oauth.processAuthorizationCodeResponse(as, client, response), person };
  }

  it('publishes its metadata (RFC 8414): S256 only, the three grants, revocation and introspection', () => {
    expect(as.issuer).toBe(base);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
    expect(as.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(as.introspection_endpoint).toBe(`${base}/oauth/introspect`);
  });

  it('shows the consent step what the app asks for, within what it was registered for', async () => {
    const { details } = await authorize(publicClient, { scope: 'agents:read webhooks:write offline_access', decision: 'deny' });
    expect(details).toEqual({
      client: { id: publicClient.client_id, name: 'Desk Assistant', registered_by: { organization_id: await t.personalOrgId(owner.id), organization_name: expect.any(String) } },
      redirect_uri: REDIRECT, scopes: ['agents:read'], offline_access: true, resource: `${base}/v1`, remembered_organization_id: null,
    });
  });

  it('code + PKCE gives a token for the REST API, bound to the person\'s organization, that the API accepts within its scopes', async () => {
    const { tokens, person } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read offline_access' });
    expect(tokens.scope).toBe('agents:read');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ aud: `${base}/v1`, client_id: publicClient.client_id, scope: 'agents:read', iss: base });
    const me = await fetch(`${base}/v1/users/me`, { headers: { authorization: `Bearer ${person}` } }).then((r) => r.json() as Promise<{ id: string; personal_organization_id: string }>);
    expect(claims).toMatchObject({ sub: me.id, org: me.personal_organization_id });

    const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', ...init.headers } });
    expect((await call('/v1/agents')).status).toBe(200);
    const write = await call('/v1/agents', { method: 'POST', body: JSON.stringify({ name: 'Not allowed' }) });
    expect(write.status).toBe(403);
    expect((await write.json() as { code: string }).code).toBe('insufficient_scope');
    // Never account management: an app's token is not a session.
    const keys = await call('/v1/api-keys');
    expect(keys.status).toBe(403);
    expect((await keys.json() as { code: string }).code).toBe('session_required');
  });

  it("narrows a grant to the person's role in the organization chosen; a role that allows none of the scopes is 409", async () => {
    const viewer = await t.signUp();
    const team = await (await api('POST', '/v1/organizations', owner.tokens.access_token, { name: 'Viewers' })).json() as { id: string };
    await t.deps.database.db.insertInto('memberships').values({ org_id: team.id, user_id: viewer.id, role: 'viewer', created_at: new Date().toISOString() }).execute();
    const session = viewer.tokens.access_token;
    const writes = await (await consentStep(publicClient, { scope: 'agents:write', session })).decide({ decision: 'allow', organization_id: team.id });
    expect(writes.status).toBe(409);
    expect(await writes.json()).toMatchObject({ code: 'conflict', detail: expect.stringContaining('viewer') });
    // An organization the person is not in: as if it did not exist.
    const elsewhere = await (await consentStep(publicClient, { scope: 'agents:read', session })).decide({ decision: 'allow', organization_id: await t.personalOrgId(owner.id) });
    expect(elsewhere.status).toBe(404);

    const { landed, verifier, state } = await authorize(publicClient, { scope: 'agents:read agents:write', session, organization: team.id });
    const tokens = await oauth.processAuthorizationCodeResponse(as, publicClient, await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), oauth.validateAuthResponse(as, publicClient, landed, state), REDIRECT, verifier, insecure));
    expect(tokens.scope).toBe('agents:read');
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.org).toBe(team.id);
  });

  it('asks for one resource at a time, and grants openid when asked (no consent loop)', async () => {
    const go = browser();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams([
      ['client_id', publicClient.client_id], ['redirect_uri', REDIRECT], ['response_type', 'code'], ['scope', 'agents:read'],
      ['code_challenge', await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())], ['code_challenge_method', 'S256'],
      ['resource', `${base}/v1`], ['resource', `${base}/v1/mcp`],
    ]).toString();
    const begun = await go(url);
    if (begun.status === 303) {
      const person = (await t.signUp()).tokens.access_token;
      const details = await go(`${new URL(begun.headers.get('location')!, base)}/details`, { headers: { authorization: `Bearer ${person}` } });
      expect(details.status).toBe(400);
    } else {
      expect(begun.status).toBe(400); // the engine refused it first
    }
    const { tokens } = await tokensFor({ ...publicClient, id_token_signed_response_alg: 'EdDSA' }, oauth.None(), { scope: 'openid agents:read' });
    expect(tokens.id_token).toEqual(expect.any(String));
    expect(tokens.scope).toBe('agents:read'); // the access token's scope: its resource's
  });

  it('a token for the MCP endpoint is refused by the REST API', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read', resource: `${base}/v1/mcp` });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.aud).toBe(`${base}/v1/mcp`);
    const refused = await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(refused.status).toBe(401);
  });

  it('asks the dashboard who is signed in at every authorization: one browser, two people in turn, each answers for themselves', async () => {
    const go = browser();
    const authorizeUrl = async () => {
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: publicClient.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'agents:read', state: 'two-people',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256',
      }).toString();
      return url.toString();
    };
    const asPerson = (token: string) => async (uid: string, decision: 'allow' | 'deny') => {
      const answered = await go(`${base}/oauth/interaction/${uid}/decision`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision }) });
      expect(answered.status, await answered.clone().text()).toBe(200);
      return answered.json() as Promise<{ redirect_to: string }>;
    };
    const first = await t.signUp();
    const second = await t.signUp();
    for (const person of [first, second, first]) {
      // The engine's own session from the answer before (another person's, at the second turn) neither skips the consent step nor stands in the way.
      const begun = await go(await authorizeUrl());
      expect(new URL(begun.headers.get('location')!, base).pathname).toMatch(/^\/oauth\/interaction\//);
      const landed = await answerInBrowser({ base, go, url: begun.headers.get('location')!, decision: 'allow', decide: asPerson(person.tokens.access_token) });
      expect(new URL(landed).searchParams.get('code')).toEqual(expect.any(String));
    }
    const grantsOf = async (token: string) => (await (await fetch(`${base}/v1/users/me/connected-apps`, { headers: { authorization: `Bearer ${token}` } })).json() as { data: unknown[] }).data.length;
    expect([await grantsOf(first.tokens.access_token), await grantsOf(second.tokens.access_token)]).toEqual([2, 1]);
  });

  it('rotates refresh tokens; a reused one is invalid_grant and ends the grant', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read offline_access' });
    const first = await oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), tokens.refresh_token!, insecure));
    expect(first.refresh_token).not.toBe(tokens.refresh_token);
    const agents = (token: string) => fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await agents(first.access_token)).toBe(200);
    const reuse = oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), tokens.refresh_token!, insecure));
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant' });
    const after = oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), first.refresh_token!, insecure));
    await expect(after).rejects.toMatchObject({ error: 'invalid_grant' });
    // The grant ended with it: whoever holds an access token of it (a thief who refreshed first) is refused at once.
    await vi.waitFor(async () => expect(await agents(first.access_token)).toBe(401));
  });

  it('two refreshes with one refresh token at the same moment: one succeeds, and the grant ends', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read' });
    const refresh = async () => oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), tokens.refresh_token!, insecure)).then(() => 'ok', (e: { error?: string }) => e.error);
    const outcomes = await Promise.all(Array.from({ length: 5 }, refresh));
    expect(outcomes.filter((o) => o === 'ok').length).toBeLessThanOrEqual(1);
    expect(outcomes.every((o) => o === 'ok' || o === 'invalid_grant')).toBe(true);
  });

  it('an unknown resource is invalid_target, not a server error', async () => {
    const res = await oauth.deviceAuthorizationRequest(as, publicClient, oauth.None(), new URLSearchParams({ scope: 'agents:read', resource: 'https://elsewhere.example/' }), insecure);
    expect(res.status).toBe(400);
    expect((await res.json() as { error: string }).error).toBe('invalid_target');
  });

  it('a code is single-use', async () => {
    const { landed, verifier, state } = await authorize(publicClient, { scope: 'agents:read' });
    const params = oauth.validateAuthResponse(as, publicClient, landed, state);
    await oauth.processAuthorizationCodeResponse(as, publicClient, await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), params, REDIRECT, verifier, insecure));
    const again = oauth.processAuthorizationCodeResponse(as, publicClient, await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), params, REDIRECT, verifier, insecure));
    await expect(again).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a confidential client introspects and revokes; the revoked refresh token is refused', async () => {
    const auth = oauth.ClientSecretBasic(confidentialSecret);
    const { tokens } = await tokensFor(confidentialClient, auth, { scope: 'agents:read offline_access' });
    const active = await oauth.processIntrospectionResponse(as, confidentialClient, await oauth.introspectionRequest(as, confidentialClient, auth, tokens.refresh_token!, insecure));
    expect(active).toMatchObject({ active: true, client_id: confidentialClient.client_id });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, confidentialClient, auth, tokens.refresh_token!, insecure));
    const inactive = await oauth.processIntrospectionResponse(as, confidentialClient, await oauth.introspectionRequest(as, confidentialClient, auth, tokens.refresh_token!, insecure));
    expect(inactive.active).toBe(false);
    const refresh = oauth.processRefreshTokenResponse(as, confidentialClient, await oauth.refreshTokenGrantRequest(as, confidentialClient, auth, tokens.refresh_token!, insecure));
    await expect(refresh).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a denied consent sends the browser back with access_denied and the state', async () => {
    const { landed, state } = await authorize(publicClient, { scope: 'agents:read', decision: 'deny' });
    expect(landed.origin + landed.pathname).toBe(REDIRECT);
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe(state);
  });

  describe('OAuth apps (Settings → OAuth apps)', () => {
    it('registers a public app without a secret and a confidential one with a secret shown once; lists them', async () => {
      const list = await api('GET', '/v1/oauth-apps', owner.tokens.access_token);
      expect(list.status).toBe(200);
      const apps = (await list.json() as { data: Array<Record<string, unknown>> }).data;
      expect(apps.map((a) => [a.name, a.type])).toEqual([['Reporting Service', 'confidential'], ['Desk Assistant', 'public']]);
      expect(apps.every((a) => !('client_secret' in a))).toBe(true);
      expect(confidentialSecret).toMatch(/^gho_/);
    });

    it.each([
      ['plain http on a public host', 'http://app.example.com/callback'],
      ['localhost (it may resolve elsewhere)', 'http://localhost:3000/callback'],
      ['a fragment', 'https://app.example.com/callback#x'],
      ['javascript:', 'javascript:alert(1)'],
      ['a custom scheme not in reverse-domain form', 'myapp://callback'],
      ['a relative URI', '/callback'],
    ])('refuses a redirect URI with %s', async (_what, uri) => {
      const res = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Bad', type: 'public', redirect_uris: [uri], scopes: ['agents:read'] });
      expect(res.status).toBe(400);
      expect((await res.json() as { code: string }).code).toBe('validation_failed');
    });

    it('takes loopback and reverse-domain redirects (native apps, RFC 8252)', async () => {
      const res = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Native', type: 'public', redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/callback', 'com.example.app:/oauth'], scopes: ['agents:read'] });
      expect(res.status, await res.clone().text()).toBe(201);
      await api('DELETE', `/v1/oauth-apps/${(await res.json() as { id: string }).id}`, owner.tokens.access_token);
    });

    it('is for the organization\'s admins and a login only: a member, or an app\'s token, is refused', async () => {
      const member = await t.signUp();
      const teamRes = await api('POST', '/v1/organizations', owner.tokens.access_token, { name: 'Apps team' });
      const team = await teamRes.json() as { id: string };
      await t.deps.database.db.insertInto('memberships').values({ org_id: team.id, user_id: (await t.deps.database.db.selectFrom('users').select('id').where('email', '=', member.email).executeTakeFirstOrThrow()).id, role: 'member', created_at: new Date().toISOString() }).execute();
      const res = await fetch(`${base}/v1/oauth-apps`, { headers: { authorization: `Bearer ${member.tokens.access_token}`, 'gatehouse-organization': team.id } });
      expect(res.status).toBe(403);
      const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read' });
      expect((await api('GET', '/v1/oauth-apps', tokens.access_token)).status).toBe(403);
    });

    it('rotating a secret ends the old one at once', async () => {
      const created = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Rotating', type: 'confidential', redirect_uris: [REDIRECT], scopes: ['agents:read'] });
      const app = await created.json() as { id: string; client_secret: string };
      const client = { client_id: app.id };
      const introspect = async (secret: string) => (await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic(secret), 'x', insecure)).status;
      expect(await introspect(app.client_secret)).toBe(200);
      const rotated = await api('POST', `/v1/oauth-apps/${app.id}/rotate-secret`, owner.tokens.access_token);
      expect(rotated.status).toBe(200);
      const fresh = (await rotated.json() as { client_secret: string }).client_secret;
      expect(await introspect(app.client_secret)).toBe(401);
      expect(await introspect(fresh)).toBe(200);
      expect((await api('POST', `/v1/oauth-apps/${publicClient.client_id}/rotate-secret`, owner.tokens.access_token)).status).toBe(409);
    });
  });

  describe('Connected apps: a grant ends at once', () => {
    const refused = async (token: string) => (await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${token}` } })).status;
    const refreshes = async (refreshToken: string) => oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), refreshToken, insecure)).then(() => 'ok', (e: { error?: string }) => e.error);

    it('lists the grant, and revoking it refuses its access token and its refresh token', async () => {
      const { tokens, person } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read chats:read' });
      const list = await api('GET', '/v1/users/me/connected-apps', person);
      const apps = (await list.json() as { data: Array<{ id: string; client: { name: string }; scopes: string[]; last_used_at: string | null }> }).data;
      expect(apps).toHaveLength(1);
      expect(apps[0]).toMatchObject({ client: { name: 'Desk Assistant' }, scopes: ['agents:read', 'chats:read'], last_used_at: expect.any(String) });
      expect(await refused(tokens.access_token)).toBe(200);
      expect((await api('DELETE', `/v1/users/me/connected-apps/${apps[0]!.id}`, person)).status).toBe(204);
      expect(await refused(tokens.access_token)).toBe(401);
      expect(await refreshes(tokens.refresh_token!)).toBe('invalid_grant');
      expect((await (await api('GET', '/v1/users/me/connected-apps', person)).json() as { data: unknown[] }).data).toEqual([]);
      expect((await api('DELETE', `/v1/users/me/connected-apps/${apps[0]!.id}`, person)).status).toBe(404);
      // Both are in the account's security log.
      const events = (await (await api('GET', '/v1/users/me/security-events', person)).json() as { data: Array<{ type: string; detail: Record<string, unknown> }> }).data;
      expect(events.filter((e) => e.type.startsWith('app_')).map((e) => [e.type, e.detail])).toEqual([
        ['app_disconnected', { client_id: publicClient.client_id, grant_id: apps[0]!.id, reason: 'revoked' }],
        ['app_connected', { client_id: publicClient.client_id, client_name: 'Desk Assistant', organization_id: expect.any(String), scopes: ['agents:read', 'chats:read'] }],
      ]);
    });

    it('signing out everywhere ends the account\'s grants too', async () => {
      const { tokens, person } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read' });
      expect((await api('POST', '/v1/auth/logout', person, { scope: 'all' })).status).toBe(204);
      expect(await refused(tokens.access_token)).toBe(401);
      expect(await refreshes(tokens.refresh_token!)).toBe('invalid_grant');
      const relogin = await t.login((await t.deps.database.db.selectFrom('users').select('email').where('id', '=', claimsOf(tokens.access_token).sub as string).executeTakeFirstOrThrow()).email, STRONG_PASSWORD);
      const events = (await (await api('GET', '/v1/users/me/security-events', relogin.access_token)).json() as { data: Array<{ type: string; detail: { reason?: string } }> }).data;
      expect(events.find((e) => e.type === 'app_disconnected')?.detail.reason).toBe('sessions_ended');
    });

    it('removing the app ends every grant made to it', async () => {
      const created = await api('POST', '/v1/oauth-apps', owner.tokens.access_token, { name: 'Short-lived', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read'] });
      const client = { client_id: (await created.json() as { id: string }).id };
      const { tokens } = await tokensFor(client, oauth.None(), { scope: 'agents:read' });
      expect(await refused(tokens.access_token)).toBe(200);
      expect((await api('DELETE', `/v1/oauth-apps/${client.client_id}`, owner.tokens.access_token)).status).toBe(204);
      expect(await refused(tokens.access_token)).toBe(401);
    });
  });

  describe('the device grant (RFC 8628)', () => {
    const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    const poll = async (deviceCode: string) => oauth.processDeviceCodeResponse(as, publicClient,
      await oauth.deviceCodeGrantRequest(as, publicClient, oauth.None(), deviceCode, insecure))
      .then((tokens) => tokens, (error: { error?: string }) => error.error);

    it('a person enters the code, confirms and allows; the device polls: pending, slow_down when too fast, then tokens', async () => {
      const device = await oauth.processDeviceAuthorizationResponse(as, publicClient, await oauth.deviceAuthorizationRequest(as, publicClient, oauth.None(), new URLSearchParams({ scope: 'agents:read' }), insecure));
      expect(device.verification_uri).toBe(`${base}/oauth/device`);
      expect(device.verification_uri_complete).toBe(`${base}/oauth/device?user_code=${device.user_code}`);
      expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      expect(await poll(device.device_code)).toBe('authorization_pending');
      expect(await poll(device.device_code)).toBe('slow_down');

      const person = (await t.signUp()).tokens.access_token;
      const go = browser();
      const entry = await go(device.verification_uri);
      expect(entry.status).toBe(200);
      expect(entry.headers.get('content-security-policy')).toContain("form-action 'self'");
      const entryPage = await entry.text();
      expect(entryPage).toContain('<label for="user_code">The code your device shows</label>');
      const wrong = await go(device.verification_uri, form({ xsrf: hidden(entryPage, 'xsrf')!, user_code: 'BBBB-BBBB' }));
      const wrongPage = await wrong.text();
      expect(wrongPage).toContain('That code is not right');
      const confirm = await go(device.verification_uri, form({ xsrf: hidden(wrongPage, 'xsrf')!, user_code: device.user_code.toLowerCase() }));
      const confirmPage = await confirm.text();
      expect(confirmPage).toContain('Desk Assistant');
      expect(confirmPage).toContain(device.user_code);
      const confirmed = await go(device.verification_uri, form({ xsrf: hidden(confirmPage, 'xsrf')!, user_code: hidden(confirmPage, 'user_code')!, confirm: 'yes' }));
      expect(confirmed.status).toBe(303);
      const interaction = new URL(confirmed.headers.get('location')!, base);
      const details = await go(`${interaction}/details`, { headers: { authorization: `Bearer ${person}` } });
      expect(await details.json()).toMatchObject({ client: { name: 'Desk Assistant' }, scopes: ['agents:read'] });
      const decided = await go(`${interaction}/decision`, { method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'allow' }) });
      expect(decided.status).toBe(200);
      let next = await go((await decided.json() as { redirect_to: string }).redirect_to);
      while (next.status === 303) next = await go(new URL(next.headers.get('location')!, base));
      expect(await next.text()).toContain('Device connected');

      // The polling interval (5 s) passes: on the limiter's clock (Redis's own when it runs).
      if (limiterUsesRealTime) await new Promise((r) => setTimeout(r, 5_200));
      else t.clock.advance(5_200);
      const tokens = await poll(device.device_code);
      expect(tokens).toMatchObject({ token_type: expect.stringMatching(/bearer/i), scope: 'agents:read' });
      const access = (tokens as { access_token: string }).access_token;
      expect((await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(200);
      // The code is spent.
      expect(await poll(device.device_code)).toBe('invalid_grant');
    }, 30_000);

    it('a person who cancels on the confirmation page ends it: the device is told access_denied', async () => {
      const device = await oauth.processDeviceAuthorizationResponse(as, publicClient, await oauth.deviceAuthorizationRequest(as, publicClient, oauth.None(), new URLSearchParams({ scope: 'agents:read' }), insecure));
      const go = browser();
      const entryPage = await (await go(device.verification_uri)).text();
      const confirmPage = await (await go(device.verification_uri, form({ xsrf: hidden(entryPage, 'xsrf')!, user_code: device.user_code }))).text();
      const aborted = await go(device.verification_uri, form({ xsrf: hidden(confirmPage, 'xsrf')!, user_code: device.user_code, abort: 'yes' }));
      expect(await aborted.text()).toContain('The sign-in on the device was cancelled.');
      expect(await poll(device.device_code)).toBe('access_denied');
    });
  });

  it('keeps the ids it must give back (a device code) sealed under GATEHOUSE_SECRET', async () => {
    const sealed = await createTestApp({ env: { GATEHOUSE_SECRET: randomBytes(32).toString('hex') } });
    try {
      const person = await sealed.signUp();
      const created = await sealed.request({ method: 'POST', url: '/v1/oauth-apps', headers: { authorization: `Bearer ${person.tokens.access_token}` }, payload: { name: 'Sealed', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read'] } });
      const device = await sealed.request({ method: 'POST', url: '/oauth/device_authorization', payload: `client_id=${created.json().id}&scope=agents:read`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(device.statusCode, device.body).toBe(200);
      const { device_code: deviceCode, user_code: userCode } = device.json() as { device_code: string; user_code: string };
      const rows = await sealed.deps.database.db.selectFrom('oauth_records').select('payload').execute();
      expect(rows.length).toBeGreaterThan(0);
      // The user code a person types stays readable (the engine reads it back; it grants nothing alone).
      expect(userCode).toBeTruthy();
      expect(rows.filter((r) => r.payload.includes(deviceCode))).toEqual([]);
      // …and the engine still finds it: the device is told to wait.
      const poll = await sealed.request({ method: 'POST', url: '/oauth/token', payload: `client_id=${created.json().id}&grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code=${deviceCode}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(poll.json()).toMatchObject({ error: 'authorization_pending' });
    } finally {
      await sealed.app.close();
      await sealed.deps.close();
    }
  });

  it('limits beginning flows per address, like sign-in (each writes a row)', async () => {
    const limited = await createTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.request({ method: 'GET', url: '/oauth/authorize?client_id=app_none' })).statusCode);
      expect(statuses).toEqual([400, 400, 429]);
      expect((await limited.request({ method: 'POST', url: '/oauth/token', payload: 'grant_type=refresh_token', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).statusCode).toBe(400);
    } finally {
      await limited.app.close();
      await limited.deps.close();
    }
  });

  it("hands the engine its own paths only, and its refusals to a browser are Gatehouse's page", async () => {
    const elsewhere = await fetch(`${base}/oauth/interaction/${'x'.repeat(300)}/details`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await fetch(`${base}/oauth/anything-else`)).headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const bad = await fetch(`${base}/oauth/authorize?client_id=app_unknown&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await bad.text();
    expect(page).toContain('This sign-in cannot go on');
    expect(page).toContain('invalid_client');
    expect(page).not.toContain('fonts.googleapis.com');
    expect(page).toContain(bad.headers.get('x-request-id')!); // the id to quote is the answer's own
    expect(bad.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('stores no usable code or token: rows are found by the SHA-256 of their id', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read offline_access' });
    const rows = await t.deps.database.db.selectFrom('oauth_records').select(['id_hash', 'payload']).execute();
    expect(rows.some((r) => r.id_hash === sha256Hex(tokens.refresh_token!))).toBe(true);
    expect(rows.filter((r) => r.payload.includes(tokens.refresh_token!))).toEqual([]);
  });
});
