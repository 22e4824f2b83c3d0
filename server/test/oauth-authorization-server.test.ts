/**
 * Gatehouse as an OAuth 2.1 authorization server, driven by an independent client library
 * (oauth4webapi) over real HTTP: discovery, authorization code with PKCE through the consent step,
 * a token bound to its resource and organization, refresh rotation and reuse detection,
 * revocation, introspection, and a denied consent. The browser is a cookie jar following
 * redirects by hand; the person's answer is the API the dashboard's consent page calls.
 */
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/kernel/opaque-tokens.js';
import { clientSecrets } from '../src/access/oauth/oauth-clients.js';
import { freePort } from './free-port.js';
import { createTestApp, type TestApp } from './harness.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = 'http://127.0.0.1:4999/callback';

/** A browser: a cookie jar and manual redirects. */
function browser() {
  const jar = new Map<string, string>();
  return async (url: string | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
}

describe('the OAuth 2.1 authorization server', () => {
  let t: TestApp;
  let base: string;
  let as: oauth.AuthorizationServer;
  const publicClient: oauth.Client = { client_id: `app_${randomBytes(6).toString('hex')}` };
  const confidentialClient: oauth.Client = { client_id: `app_${randomBytes(6).toString('hex')}` };
  const confidentialSecret = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const owner = await t.register();
    const org = await t.personalOrgId(owner.id);
    const now = new Date().toISOString();
    // Registered as Settings → OAuth apps will register them (that route is not in yet).
    await t.deps.database.db.insertInto('oauth_clients').values([
      {
        client_id: publicClient.client_id, org_id: org, name: 'Desk Assistant', secret_sealed: null, scopes: 'agents:read agents:write chats:read', created_by: owner.id, created_at: now,
        metadata: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], application_type: 'native' }),
      },
      {
        client_id: confidentialClient.client_id, org_id: org, name: 'Reporting Service', secret_sealed: clientSecrets.seal(confidentialSecret, t.config.secret), scopes: 'agents:read', created_by: owner.id, created_at: now,
        metadata: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
      },
    ]).execute();
    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
  });

  afterAll(async () => {
    await t?.app.close();
    await t?.deps.close();
  });

  /** A person signs in, is sent through the authorization and answers; returns where the browser lands. */
  async function authorize(client: oauth.Client, options: { scope: string; resource?: string; decision?: 'allow' | 'deny'; session?: string }) {
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
    const decided = await go(`${interaction}/decision`, {
      method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: options.decision ?? 'allow' }),
    });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const resumed = await go((await decided.json() as { redirect_to: string }).redirect_to);
    expect(resumed.status).toBe(303);
    return { landed: new URL(resumed.headers.get('location')!), verifier, state, details: await details.json(), person };
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
      client: { id: publicClient.client_id, name: 'Desk Assistant' }, redirect_uri: REDIRECT, scopes: ['agents:read'], offline_access: true, resource: `${base}/v1`,
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

  it('a token for the MCP endpoint is refused by the REST API', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read', resource: `${base}/v1/mcp` });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.aud).toBe(`${base}/v1/mcp`);
    const refused = await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(refused.status).toBe(401);
  });

  it('rotates refresh tokens; a reused one is invalid_grant and ends the grant', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read offline_access' });
    const first = await oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), tokens.refresh_token!, insecure));
    expect(first.refresh_token).not.toBe(tokens.refresh_token);
    const reuse = oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), tokens.refresh_token!, insecure));
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant' });
    const after = oauth.processRefreshTokenResponse(as, publicClient, await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), first.refresh_token!, insecure));
    await expect(after).rejects.toMatchObject({ error: 'invalid_grant' });
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

  it('stores no usable code or token: rows are found by the SHA-256 of their id', async () => {
    const { tokens } = await tokensFor(publicClient, oauth.None(), { scope: 'agents:read offline_access' });
    const rows = await t.deps.database.db.selectFrom('oauth_records').select(['id_hash', 'payload']).execute();
    expect(rows.some((r) => r.id_hash === sha256Hex(tokens.refresh_token!))).toBe(true);
    expect(rows.filter((r) => r.payload.includes(tokens.refresh_token!))).toEqual([]);
  });
});
