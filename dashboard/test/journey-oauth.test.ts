/**
 * Apps acting for people, in Chromium against a real server (dynamic registration on):
 * - the official MCP TypeScript SDK as an MCP client: it meets a 401, discovers the authorization
 *   server from the protected resource metadata, registers itself, and sends the person's browser
 *   to authorize; the person logs in on the dashboard's login page and allows on the consent page;
 *   the client gets a token, lists the tools and calls one that returns the person's agents.
 *   A client that asks for read-only access is refused by create_agent; its token by the REST API;
 * - oauth4webapi as a command-line tool running the device grant: the person enters the code on
 *   the verification page and allows; the tool's polls go from authorization_pending to a token;
 * - a person who denies: the app gets `error=access_denied` with its `state`.
 * axe-core checks the consent page on desktop and phone.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oauth from 'oauth4webapi';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipJourneys, useJourney, type TestUser } from './journey-harness.ts';

/** A loopback redirect (RFC 8252): Chromium's request to it is answered by the test, which keeps the URL. */
const CALLBACK = 'http://127.0.0.1:4799/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** An MCP client's OAuth state, in memory; `scope` narrows what it asks the person for. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(private readonly scope?: string) {}
  get redirectUrl() { return CALLBACK; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Desk Assistant', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  redirectToAuthorization(url: URL) {
    if (this.scope) url.searchParams.set('scope', this.scope);
    this.authorizationUrl = url;
  }
}

/** Where the browser was sent back to, once it gets there. */
async function catchCallback(page: Page): Promise<() => Promise<URL>> {
  let landed: (url: URL) => void;
  const arrived = new Promise<URL>((resolve) => (landed = resolve));
  await page.route(`${CALLBACK}**`, async (route) => {
    landed(new URL(route.request().url()));
    await route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Done</title><p>You can close this window.</p>' });
  });
  // Once the page has loaded the callback: a navigation still under way would cut off the next step's.
  return async () => {
    const url = await arrived;
    await page.waitForURL(`${CALLBACK}**`);
    await page.unroute(`${CALLBACK}**`);
    return url;
  };
}

describe.skipIf(skipJourneys)('dashboard journey: apps acting for people (Chromium)', () => {
  const journey = useJourney({ name: 'oauth', serverEnv: { OAUTH_DYNAMIC_CLIENT_REGISTRATION: 'true' } });
  const { shoot } = journey;
  let person: TestUser;
  let firstClient: MemoryProvider;
  const mcpUrl = () => new URL(`${journey.server.base}/v1/mcp`);

  /** Connects; the first time the SDK meets a 401, runs the OAuth flow up to the browser, and the browser through `approve`. */
  async function connect(provider: MemoryProvider, approve: (page: Page, authorizationUrl: URL) => Promise<void>) {
    const first = new Client({ name: 'desk-assistant', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id, 'registered dynamically').toMatch(/^app_/);
    const callback = await catchCallback(journey.page);
    await approve(journey.page, provider.authorizationUrl!);
    const code = (await callback()).searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await transport.finishAuth(code!);
    const client = new Client({ name: 'desk-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    return client;
  }

  it('an MCP client connects through login and consent, lists the tools and reads the person\'s agents', async () => {
    person = await journey.signUp();
    const agent = await person.api.agents.create({ name: 'Support bot', model: 'gpt-4o' });
    const provider = new MemoryProvider();
    firstClient = provider;
    const client = await connect(provider, async (page, url) => {
      // Signed out: the login page first, then back to the consent page.
      await page.goto(url.toString());
      await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Allow access' }).waitFor();
      const card = page.locator('.consent');
      expect(await card.getByRole('heading', { level: 2 }).textContent()).toBe('Desk Assistant wants to act for you');
      await card.getByText('Registered by the app itself').waitFor();
      for (const words of ['See your agents', 'Create, change and delete agents', 'Read your chats and their messages', 'Start chats and post messages']) await card.getByText(words).waitFor();
      await card.getByText('Through the MCP server').waitFor();
      await card.getByText('an app on this device (127.0.0.1:4799)').waitFor();
      await shoot('consent');
      await page.getByRole('button', { name: 'Allow' }).click();
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_agents', 'get_agent', 'create_agent', 'list_chats', 'create_chat', 'list_messages', 'post_message']);
    const listed = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(listed.structuredContent).toEqual({ data: [agent], next_cursor: null });
    // The token is for the MCP endpoint only.
    const rest = await fetch(`${journey.server.base}/v1/agents`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    expect(rest.status).toBe(401);
    // Settings → Connected apps would list it: the API does.
    const connected = await person.api.oauth.connectedApps.list();
    expect(connected.data.map((app) => [app.client.name, app.scopes])).toEqual([['Desk Assistant', ['agents:read', 'agents:write', 'chats:read', 'chats:write']]]);
    await client.close();
  });

  it('the same client asking for as much again goes straight back: the consent is remembered', async () => {
    firstClient.saved = undefined; // its tokens lost: it must authorize again
    const client = await connect(firstClient, async (page, url) => {
      await page.goto(url.toString()); // no click: the page goes on by itself
    });
    expect((await client.callTool({ name: 'list_agents', arguments: {} })).isError).toBeFalsy();
    expect((await person.api.oauth.connectedApps.list()).data).toHaveLength(1); // the same grant, not a second one
    await client.close();
  });

  it('a client that asks for read-only access is refused by create_agent', async () => {
    const provider = new MemoryProvider('agents:read chats:read');
    const client = await connect(provider, async (page, url) => {
      await page.goto(url.toString()); // signed in now: straight to the consent page
      await page.getByRole('heading', { level: 1, name: 'Allow access' }).waitFor();
      await page.locator('.consent').getByText('See your agents').waitFor();
      expect(await page.locator('.consent').getByText('Create, change and delete agents').count()).toBe(0);
      await page.getByRole('button', { name: 'Allow' }).click();
    });
    const refused = await client.callTool({ name: 'create_agent', arguments: { name: 'Not allowed', model: 'gpt-4o' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope', required_scope: 'agents:write' });
    expect((await person.api.agents.list()).data.map((a) => a.name)).toEqual(['Support bot']);
    await client.close();
  });

  describe('with oauth4webapi', () => {
    async function registered(grantTypes: string[]) {
      const issuer = new URL(journey.server.base);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
      const answer = await fetch(as.registration_endpoint!, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Gatehouse CLI', redirect_uris: [CALLBACK], grant_types: grantTypes }),
      });
      expect(answer.status).toBe(201);
      return { as, client: { client_id: (await answer.json() as { client_id: string }).client_id } as oauth.Client };
    }

    it('runs the device grant: the person enters the code in the browser and allows; the polls turn into a token', async () => {
      const { as, client } = await registered(['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token']);
      const started = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, oauth.None(), new URLSearchParams({ scope: 'agents:read' }), insecure));
      const poll = () => oauth.deviceCodeGrantRequest(as, client, oauth.None(), started.device_code, insecure).then((r) => oauth.processDeviceCodeResponse(as, client, r));
      await expect(poll()).rejects.toMatchObject({ error: 'authorization_pending' });

      const page = journey.page;
      await page.goto(started.verification_uri);
      await page.getByRole('heading', { level: 1, name: 'Connect a device' }).waitFor();
      await shoot('device-code');
      await page.getByLabel('The code your device shows').fill('BCDF-GHJK');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').getByText('That code is not right').waitFor();
      await page.getByLabel('The code your device shows').fill(started.user_code.toLowerCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Is this your device?' }).waitFor();
      await page.getByText(started.user_code).waitFor();
      await shoot('device-confirm');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Allow access' }).waitFor();
      await page.locator('.consent').getByText('Through the API').waitFor();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { level: 1, name: 'Device connected' }).waitFor();

      // RFC 8628 §3.5: polled sooner than the interval, the answer is slow_down, then the token.
      let tokens: oauth.TokenEndpointResponse | undefined;
      for (let tries = 0; !tokens && tries < 10; tries++) {
        try {
          tokens = await poll();
        } catch (error) {
          expect(error).toMatchObject({ error: 'slow_down' });
          await new Promise((resolve) => setTimeout(resolve, 1_000 * (started.interval ?? 5)));
        }
      }
      expect(tokens!.scope).toBe('agents:read');
      const agents = await fetch(`${journey.server.base}/v1/agents`, { headers: { authorization: `Bearer ${tokens!.access_token}` } });
      expect(agents.status).toBe(200);
    });

    it('a denied consent sends the app access_denied with its state', async () => {
      const { as, client } = await registered(['authorization_code']);
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.client_id, redirect_uri: CALLBACK, response_type: 'code', scope: 'chats:read', state,
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256',
      }).toString();
      const callback = await catchCallback(journey.page);
      await journey.page.goto(url.toString());
      await journey.page.getByRole('heading', { level: 1, name: 'Allow access' }).waitFor();
      await journey.page.getByRole('button', { name: 'Deny' }).click();
      const landed = await callback();
      expect(Object.fromEntries(landed.searchParams)).toMatchObject({ error: 'access_denied', state, iss: journey.server.base });
      expect(() => oauth.validateAuthResponse(as, client, landed, state)).toThrow(/access_denied|authorization response/i);
    });
  });

  it('Settings → Connected apps lists what the person allowed; removing one stops its tokens at once', async () => {
    const page = journey.page;
    await page.goto('/settings/connected-apps');
    await page.getByRole('heading', { level: 2, name: 'Connected apps' }).waitFor();
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(3); // the two MCP clients and the command-line tool
    await shoot('connected-apps');
    const mcp = new Client({ name: 'desk-assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: firstClient }));
    const fullAccess = rows.filter({ hasText: 'Create, change and delete agents' });
    await fullAccess.getByRole('button', { name: 'Remove Desk Assistant' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove app' }).click();
    await page.getByText('Desk Assistant can no longer act for you.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    const refused = await fetch(mcpUrl(), {
      method: 'POST', headers: { authorization: `Bearer ${firstClient.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(refused.status).toBe(401);
    await mcp.close();
  });

  it('Settings → OAuth apps registers an app (a confidential one\'s secret shown once and working), rotates its secret and removes it', async () => {
    const page = journey.page;
    await page.goto('/settings/oauth-apps');
    await page.getByRole('heading', { level: 2, name: 'Register an OAuth app' }).waitFor();
    await page.getByLabel('Name').fill('Reporting Service');
    await page.getByLabel('Type').selectOption('confidential');
    await page.getByLabel('Redirect URIs').fill('http://reports.example.com/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    // Plain http off loopback is refused, with the reason on the field.
    await page.getByText('Plain http is only for loopback addresses').first().waitFor();
    await page.getByLabel('Redirect URIs').fill('https://reports.example.com/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    const secret = await page.locator('#oauth-client-secret').inputValue();
    expect(secret).toMatch(/^gho_/);
    const clientId = (await page.locator('.card code').first().textContent())!;
    await shoot('oauth-app-secret');
    const introspect = (id: string, password: string) => fetch(`${journey.server.base}/oauth/introspect`, {
      method: 'POST', headers: { authorization: `Basic ${btoa(`${id}:${password}`)}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=nothing',
    }).then((r) => r.status);
    expect(await introspect(clientId, secret)).toBe(200);
    await page.getByRole('button', { name: 'I have stored it' }).click();

    const row = page.locator('table tbody tr', { hasText: 'Reporting Service' });
    await row.waitFor();
    await shoot('oauth-apps');
    await row.getByRole('button', { name: 'Rotate secret of Reporting Service' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await page.locator('#oauth-client-secret').inputValue();
    expect(rotated).not.toBe(secret);
    expect(await introspect(clientId, secret)).toBe(401);
    expect(await introspect(clientId, rotated)).toBe(200);
    await page.getByRole('button', { name: 'I have stored it' }).click();

    await row.getByRole('button', { name: 'Remove Reporting Service' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove app' }).click();
    await page.getByText('Reporting Service is removed').waitFor();
    expect(await introspect(clientId, rotated)).toBe(401);
  });
});
