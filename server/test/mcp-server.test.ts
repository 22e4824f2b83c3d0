/**
 * The platform as an MCP server, with the official MCP TypeScript SDK as the client: the 401
 * that names the protected resource metadata, dynamic registration, a token bound to the MCP
 * endpoint, tools listed and called through the same services as the REST API, a read-only
 * grant refused by a writing tool, and the audience binding both ways. (The dashboard's journey
 * runs the SDK's own OAuth flow through sign-in and consent in Chromium.)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { createTestApp, type TestApp } from './harness.js';
import { authorizeWithCode, insecure } from './oauth-flow.js';
import { openSse } from './sse-client.js';

const REDIRECT = 'http://127.0.0.1:4999/callback';
const WRITE_SCOPES = 'agents:read agents:write chats:read chats:write';

describe('the MCP server at /v1/mcp', () => {
  let t: TestApp;
  let base: string;
  let mcpUrl: string;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...init.headers } });

  async function connect(token: string) {
    const mcp = new Client({ name: 'gatehouse-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return mcp;
  }

  async function mcpToken(person: string, scope: string, resource = mcpUrl) {
    const { tokens } = await authorizeWithCode(as, client, oauth.None(), person, { scope, redirectUri: REDIRECT, resource });
    return tokens!.access_token;
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    mcpUrl = `${base}/v1/mcp`;
    t = await createTestApp({ env: { PUBLIC_URL: base, OAUTH_DYNAMIC_CLIENT_REGISTRATION: 'true' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
    const registered = await fetch(as.registration_endpoint!, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desk Assistant', redirect_uris: [REDIRECT], logo_uri: 'https://example.com/logo.png' }),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    client = { client_id: (await registered.json() as { client_id: string }).client_id };
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers a request without a token with 401 naming its protected resource metadata, which names Gatehouse as the authorization server', async () => {
    const refused = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${base}/.well-known/oauth-protected-resource/v1/mcp`);
    const metadata = await fetch(metadataUrl!).then((r) => r.json() as Promise<Record<string, unknown>>);
    expect(metadata).toMatchObject({ resource: mcpUrl, authorization_servers: [base], scopes_supported: ['agents:read', 'agents:write', 'chats:read', 'chats:write'] });
  });

  it('registers clients dynamically (RFC 7591): public by default; a redirect URI that is not allowed is invalid_redirect_uri', async () => {
    expect(as.registration_endpoint).toBe(`${base}/oauth/register`);
    const confidential = await fetch(as.registration_endpoint!, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'client_secret_post', scope: 'agents:read nonsense' }),
    });
    expect(confidential.status).toBe(201);
    expect(await confidential.json()).toMatchObject({ client_secret: expect.stringMatching(/^gho_/), token_endpoint_auth_method: 'client_secret_post', scope: 'agents:read', client_name: 'Unnamed app' });
    const plainHttp = await fetch(as.registration_endpoint!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://app.example.com/cb'] }) });
    expect(plainHttp.status).toBe(400);
    expect(await plainHttp.json()).toMatchObject({ code: 'validation_failed', error: 'invalid_redirect_uri' });
  });

  it("lists the tools and calls them for the person's organization, with the API's own shapes", async () => {
    const person = await t.signUp();
    const created = await call('/v1/agents', person.tokens.access_token, { method: 'POST', body: JSON.stringify({ name: 'Support bot', model: 'gpt-4o' }) });
    const agent = await created.json() as { id: string };
    const mcp = await connect(await mcpToken(person.tokens.access_token, WRITE_SCOPES));
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_agents', 'get_agent', 'create_agent', 'list_chats', 'create_chat', 'list_messages', 'post_message']);
    expect(tools.find((tool) => tool.name === 'create_agent')!.inputSchema).toMatchObject({ type: 'object', required: ['name', 'model'] });

    const listed = await mcp.callTool({ name: 'list_agents', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toEqual({ data: [await call(`/v1/agents/${agent.id}`, person.tokens.access_token).then((r) => r.json())], next_cursor: null });

    const chat = (await mcp.callTool({ name: 'create_chat', arguments: { agent_id: agent.id, title: 'From an assistant' } })).structuredContent as { id: string };
    const posted = await mcp.callTool({ name: 'post_message', arguments: { chat_id: chat.id, role: 'user', content: 'Hello' } });
    expect(posted.structuredContent).toMatchObject({ chat_id: chat.id, role: 'user', content: 'Hello', status: 'completed' });
    const messages = await call(`/v1/chats/${chat.id}/messages`, person.tokens.access_token).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(messages.data).toEqual([posted.structuredContent]);
    await mcp.close();
  });

  it("refuses a writing tool to a read-only grant (a tool error with the REST API's problem), and bad arguments and unknown ids likewise", async () => {
    const person = await t.signUp();
    const mcp = await connect(await mcpToken(person.tokens.access_token, 'agents:read'));
    const refused = await mcp.callTool({ name: 'create_agent', arguments: { name: 'Nope', model: 'gpt-4o' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope', required_scope: 'agents:write' });
    const invalid = await mcp.callTool({ name: 'get_agent', arguments: { agent_id: 7 } });
    expect(invalid.structuredContent).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: '/agent_id', code: 'invalid_type' }] });
    const missing = await mcp.callTool({ name: 'get_agent', arguments: { agent_id: 'agt_nothing' } });
    expect(missing.structuredContent).toMatchObject({ status: 404, code: 'not_found' });
    await expect(mcp.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/No tool named drop_tables/);
    const agents = await call('/v1/agents', person.tokens.access_token).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(agents.data).toEqual([]);
    await mcp.close();
  });

  it('binds tokens to their resource: the MCP token is refused by the REST API, and the REST API\'s credentials by the MCP endpoint', async () => {
    const person = await t.signUp();
    const forMcp = await mcpToken(person.tokens.access_token, 'agents:read');
    const rest = await call('/v1/agents', forMcp);
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: 'invalid_token' });
    const forApi = await mcpToken(person.tokens.access_token, 'agents:read', `${base}/v1`);
    const key = await call('/v1/api-keys', person.tokens.access_token, { method: 'POST', body: JSON.stringify({ name: 'k', scopes: ['agents:read'] }) }).then((r) => r.json() as Promise<{ key: string }>);
    for (const credential of [forApi, person.tokens.access_token, key.key]) {
      const refused = await call('/v1/mcp', credential, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    }
  });

  it('ends a connection at once when the person revokes the grant', async () => {
    const person = await t.signUp();
    const token = await mcpToken(person.tokens.access_token, 'agents:read');
    const mcp = await connect(token);
    const [grant] = await call('/v1/users/me/connected-apps', person.tokens.access_token).then((r) => r.json() as Promise<{ data: { id: string }[] }>).then((b) => b.data);
    const revoked = await fetch(`${base}/v1/users/me/connected-apps/${grant!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${person.tokens.access_token}` } });
    expect(revoked.status).toBe(204);
    await expect(mcp.listTools()).rejects.toThrow();
    const refused = await call('/v1/mcp', token, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(refused.status).toBe(401);
    // The organization's webhooks hear of the app let in, and of its end.
    const events = await t.deps.database.db.selectFrom('events').select(['type', 'data']).where('org_id', '=', await t.personalOrgId(person.id)).where('type', 'like', 'oauth.grant.%').orderBy('id').execute();
    expect(events.map((e) => [e.type, JSON.parse(e.data)])).toEqual([
      ['oauth.grant.created', { id: grant!.id, user_id: person.id, client_id: client.client_id, client_name: 'Desk Assistant', scopes: ['agents:read'], resource: mcpUrl }],
      ['oauth.grant.revoked', { id: grant!.id, user_id: person.id, client_id: client.client_id, reason: 'revoked' }],
    ]);
  });

  it("closes an app's live stream at once when the person ends its grant", async () => {
    const person = await t.signUp();
    const token = await mcpToken(person.tokens.access_token, 'chats:read', `${base}/v1`);
    const stream = await openSse(`${base}/v1/events/stream`, { authorization: `Bearer ${token}` });
    expect(stream.status).toBe(200);
    const [grant] = await call('/v1/users/me/connected-apps', person.tokens.access_token).then((r) => r.json() as Promise<{ data: { id: string }[] }>).then((b) => b.data);
    const revokedAt = Date.now();
    await fetch(`${base}/v1/users/me/connected-apps/${grant!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${person.tokens.access_token}` } });
    expect((await stream.ended) - revokedAt).toBeLessThan(1_000);
    expect(stream.events.at(-1)).toMatchObject({ event: 'stream.closed', data: { reason: 'credential_revoked' } });
  });

  it('spends one request of the budget per call, and serves no stream or session (GET and DELETE are 405)', async () => {
    const person = await t.signUp();
    const token = await mcpToken(person.tokens.access_token, 'agents:read');
    const answered = await call('/v1/mcp', token, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('ratelimit')).toMatch(/^"minute";r=99;t=\d+$/);
    for (const method of ['GET', 'DELETE']) {
      expect((await fetch(mcpUrl, { method, headers: { authorization: `Bearer ${token}` } })).status).toBe(405);
    }
  });

  it('answers hostile input with a clear error, never a 500', async () => {
    const person = await t.signUp();
    const token = await mcpToken(person.tokens.access_token, WRITE_SCOPES);
    const post = (body: string, headers: Record<string, string> = {}) => call('/v1/mcp', token, { method: 'POST', body, headers });
    const bodies = [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_agent","arguments":"x"}}',
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_agent","arguments":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}}`,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"post_message","arguments":{"chat_id":"cht_x\u0000","role":"user","content":"\ud800"}}}',
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '{}', '[]', 'null', '"tools/list"', '{"jsonrpc":"2.0","id":1,"method":"nothing/here"}',
    ];
    for (const body of bodies) {
      const answer = await post(body);
      expect(answer.status, body).toBeLessThan(500);
      const text = await answer.text();
      expect(text, body).not.toMatch(/internal|stack/i);
    }
    expect((await post('{', {})).status).toBe(400);
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { accept: 'application/json' })).status).toBe(406);
    const agents = await call('/v1/agents', person.tokens.access_token).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(agents.data).toEqual([]);
  });
});
