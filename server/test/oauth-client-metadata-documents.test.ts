/**
 * Client ID Metadata Documents (the MCP 2025-11 profile): an app whose client_id is the URL of a
 * JSON document describing it, fetched through the outbound guard (here from a loopback server,
 * with WEBHOOK_ALLOW_PRIVATE), cached for its max-age, with its redirect URIs enforced; a
 * document that names another client_id, or a redirect URI it does not list, is refused.
 */
import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { createTestApp, type TestApp } from './harness.js';
import { authorizeWithCode, insecure } from './oauth-flow.js';

const REDIRECT = 'http://127.0.0.1:4999/callback';

describe('Client ID Metadata Documents', () => {
  let t: TestApp;
  let base: string;
  let docs: Server;
  let docsBase: string;
  let as: oauth.AuthorizationServer;
  const fetched: string[] = [];
  const documents = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    const docsPort = await freePort();
    docsBase = `http://127.0.0.1:${docsPort}`;
    docs = createServer((req, res) => {
      fetched.push(req.url!);
      const doc = documents.get(req.url!);
      if (!doc) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((resolve) => docs.listen(docsPort, '127.0.0.1', resolve));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_URL: base, OAUTH_DYNAMIC_CLIENT_REGISTRATION: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
  });

  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => docs?.close(resolve));
  });

  const publish = (path: string, doc: Record<string, unknown>) => {
    documents.set(path, doc);
    return `${docsBase}${path}`;
  };
  const authorizeStatus = async (clientId: string, redirectUri = REDIRECT) => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'agents:read', state: 's',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256',
    }).toString();
    return (await fetch(url, { redirect: 'manual' })).status;
  };

  it('says so in the metadata', () => {
    expect((as as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
  });

  it('takes a client_id that is its document\'s URL: the consent step names the app, the token works, the document is fetched once while fresh', async () => {
    const clientId = publish('/desk.json', { client_id: `${docsBase}/desk.json`, client_name: 'Desk Assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] });
    const person = await t.signUp();
    const client = { client_id: clientId };
    const { tokens } = await authorizeWithCode(as, client, oauth.None(), person.tokens.access_token, { scope: 'agents:read', redirectUri: REDIRECT });
    expect(tokens!.scope).toBe('agents:read');
    expect((await fetch(`${base}/v1/agents`, { headers: { authorization: `Bearer ${tokens!.access_token}` } })).status).toBe(200);
    const apps = await (await fetch(`${base}/v1/users/me/connected-apps`, { headers: { authorization: `Bearer ${person.tokens.access_token}` } })).json() as { data: Array<{ client: { id: string; name: string } }> };
    expect(apps.data.map((a) => a.client)).toEqual([{ id: clientId, name: 'Desk Assistant' }]);
    await authorizeWithCode(as, client, oauth.None(), person.tokens.access_token, { scope: 'agents:read', redirectUri: REDIRECT });
    expect(fetched.filter((path) => path === '/desk.json')).toHaveLength(1);
  });

  it('enforces the document: a redirect URI it does not list, or a document naming another client_id, is refused before any consent', async () => {
    const listed = publish('/strict.json', { client_id: `${docsBase}/strict.json`, redirect_uris: [REDIRECT] });
    expect(await authorizeStatus(listed, 'http://127.0.0.1:5000/elsewhere')).toBe(400);
    const impostor = publish('/impostor.json', { client_id: 'https://trusted.example.com/client.json', redirect_uris: [REDIRECT] });
    expect(await authorizeStatus(impostor)).toBe(400);
    const confidential = publish('/secret.json', { client_id: `${docsBase}/secret.json`, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' });
    expect(await authorizeStatus(confidential)).toBe(400);
    expect(await authorizeStatus(`${docsBase}/missing.json`)).toBe(400);
    expect(await authorizeStatus(`${docsBase}/${'x'.repeat(120)}.json`)).toBe(400); // longer than a client_id is kept
    expect(await authorizeStatus(listed)).toBe(303);
  });
});
