import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browser } from './oauth-browser.js';
import { postJson, type ServerProcess } from './server-process.js';
import { startTwoInstances, twoInstancesAvailable, type TwoInstances } from './two-instances.js';

/**
 * The authorization server as two processes behind one name, sharing PostgreSQL and Redis: an
 * authorization begun on one instance is answered and finished on the other (the engine keeps
 * nothing in memory; both derive its cookie key from the shared signing key), and a grant ended
 * on one is refused by the other at once. Runs in .ci/run's PostgreSQL + Redis pass.
 */
describe.runIf(twoInstancesAvailable)('OAuth across two instances on PostgreSQL + Redis', () => {
  let servers: TwoInstances;
  let a: ServerProcess;
  let b: ServerProcess;
  const REDIRECT = 'http://127.0.0.1:4999/callback';

  beforeAll(async () => {
    servers = await startTwoInstances('gatehouse_oauth');
    ({ a, b } = servers);
  }, 60_000);

  afterAll(() => servers?.stop());

  /** A browser whose cookies go to both instances (one host name, as behind a balancer), kept from one test to the next. */
  const browse = browser();
  /** A URL the engine built under PUBLIC_URL, sent to an instance instead. */
  const on = (server: ServerProcess, location: string) => { const url = new URL(location, server.base); return `${server.base}${url.pathname}${url.search}`; };

  async function signUp(): Promise<string> {
    const email = `oauth-multi-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'Tidal-Compass-Orchard-9';
    expect((await postJson(a.base, '/v1/auth/register', { email, password, name: 'Multi' })).status).toBe(201);
    return ((await (await postJson(b.base, '/v1/auth/login', { username: email, password })).json()) as { access_token: string }).access_token;
  }

  it('begins on one instance, consents and exchanges on the other; a grant ended on one is refused by the other at once', async () => {
    const person = await signUp();
    const app = await (await postJson(a.base, '/v1/oauth-apps', { name: 'Two places', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read'] }, person)).json() as { id: string };

    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: app.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'agents:read', state: 's1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    const begun = await browse(`${a.base}/oauth/authorize?${query}`);
    expect(begun.status).toBe(303);
    const interaction = on(b, begun.headers.get('location')!);
    const decided = await browse(`${interaction}/decision`, { method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'allow' }) });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const resumed = await browse(on(a, (await decided.json() as { redirect_to: string }).redirect_to));
    expect(resumed.status).toBe(303);
    const code = new URL(resumed.headers.get('location')!).searchParams.get('code')!;
    expect(code).toBeTruthy();

    const token = async (server: ServerProcess, form: Record<string, string>) => fetch(`${server.base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: app.id, ...form }) });
    const exchanged = await token(b, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const tokens = await exchanged.json() as { access_token: string; refresh_token: string };

    const viaA = () => fetch(`${a.base}/v1/agents`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((r) => r.status);
    expect(await viaA()).toBe(200); // now cached on A
    const grants = await (await fetch(`${b.base}/v1/users/me/connected-apps`, { headers: { authorization: `Bearer ${person}` } })).json() as { data: Array<{ id: string }> };
    expect((await fetch(`${b.base}/v1/users/me/connected-apps/${grants.data[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${person}` } })).status).toBe(204);
    const started = Date.now();
    let status = await viaA();
    while (status === 200 && Date.now() - started < 1_000) status = await viaA();
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1_000);
    const refreshed = await token(a, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(400);
    expect((await refreshed.json() as { error: string }).error).toBe('invalid_grant');
  });

  it('a grant for the MCP endpoint ended on one instance is refused by the MCP endpoint of the other at once', async () => {
    const person = await signUp();
    const app = await (await postJson(a.base, '/v1/oauth-apps', { name: 'Two places, MCP', type: 'public', redirect_uris: [REDIRECT], scopes: ['agents:read'] }, person)).json() as { id: string };
    const { issuer } = await (await fetch(`${a.base}/.well-known/oauth-authorization-server`)).json() as { issuer: string };
    const resource = `${issuer}/v1/mcp`;
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: app.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'agents:read', state: 's2', resource,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    const begun = await browse(`${b.base}/oauth/authorize?${query}`);
    const decided = await browse(`${on(a, begun.headers.get('location')!)}/decision`, { method: 'POST', headers: { authorization: `Bearer ${person}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'allow' }) });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const resumed = await browse(on(b, (await decided.json() as { redirect_to: string }).redirect_to));
    expect(resumed.status, (await resumed.clone().text()).replace(/<style[\s\S]*?<\/style>/, "").slice(0, 1500)).toBe(303);
    const code = new URL(resumed.headers.get('location')!).searchParams.get('code')!;
    const exchanged = await fetch(`${a.base}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.id, grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, resource }),
    });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const { access_token: token } = await exchanged.json() as { access_token: string };

    const listTools = () => fetch(`${b.base}/v1/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    }).then((r) => r.status);
    expect(await listTools()).toBe(200); // now cached on B
    expect((await fetch(`${a.base}/v1/agents`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401); // not for the REST API
    const grants = await (await fetch(`${a.base}/v1/users/me/connected-apps`, { headers: { authorization: `Bearer ${person}` } })).json() as { data: Array<{ id: string }> };
    expect((await fetch(`${a.base}/v1/users/me/connected-apps/${grants.data[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${person}` } })).status).toBe(204);
    const started = Date.now();
    let status = await listTools();
    while (status === 200 && Date.now() - started < 1_000) status = await listTools();
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
