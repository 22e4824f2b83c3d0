/** The SDK's pieces without a server: retry rules, URLs, token stores, pagination, path parameters. */
import { describe, expect, it } from 'vitest';
import { createGatehouse, collect, memoryTokenStore, paginate, parseStoredSession, webStorageTokenStore, type FetchLike } from '../src/index.js';
import { buildUrl, normalizeBaseUrl } from '../src/http.js';
import { isRetrySafe, parseRetryAfter } from '../src/retry.js';
import { rejection } from './helpers.js';

const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: 'about:blank', title: code, status, detail: code, code, request_id: 'req_x' }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A fetch answering from a script, and remembering what it was asked. */
function scripted(...answers: (() => Response)[]) {
  const seen: { url: string; method: string; headers: Record<string, string> }[] = [];
  const fetch: FetchLike = async (url, init) => {
    seen.push({ url, method: init.method ?? 'GET', headers: init.headers as Record<string, string> });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  };
  return { fetch, seen };
}

describe('retry rules', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3);
    expect(parseRetryAfter(' 0 ', 0)).toBe(0);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 2_000)).toBe(8);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0)).toBeNull();
  });

  it('repeats only idempotent methods or requests with an Idempotency-Key', () => {
    expect(['GET', 'DELETE', 'PUT'].map((m) => isRetrySafe(m, false))).toEqual([true, true, true]);
    expect(isRetrySafe('POST', false)).toBe(false);
    expect(isRetrySafe('PATCH', false)).toBe(false);
    expect(isRetrySafe('POST', true)).toBe(true);
  });

  it('retries 503 after Retry-After for a GET', async () => {
    const { fetch, seen } = scripted(() => problem(503, 'service_unavailable', { 'retry-after': '0' }), () => json({ status: 'ok' }));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch });
    expect(await gh.system.health()).toEqual({ status: 'ok' });
    expect(seen).toHaveLength(2);
  });

  it('retries a 408 (the request never reached the server whole) of a create with its Idempotency-Key', async () => {
    const { fetch, seen } = scripted(() => problem(408, 'request_timeout'), () => json({ id: 'agt_1', name: 'A' }, 201));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, apiKey: 'gth_x' });
    expect(await gh.agents.create({ name: 'A', model: 'm' })).toMatchObject({ id: 'agt_1' });
    expect(seen).toHaveLength(2);
    const keyOf = (headers: Record<string, string>) => Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
    expect(keyOf(seen[0]!.headers)).toBeTruthy();
    expect(keyOf(seen[1]!.headers)).toBe(keyOf(seen[0]!.headers));
  });

  it('does not retry a PATCH, nor a 500', async () => {
    const patch = scripted(() => problem(503, 'service_unavailable', { 'retry-after': '0' }));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch: patch.fetch, apiKey: 'gth_x' });
    expect(await rejection(gh.agents.update('agt_1', { name: 'n' }))).toMatchObject({ code: 'service_unavailable', status: 503, retryAfterSeconds: 0 });
    expect(patch.seen).toHaveLength(1);

    const boom = scripted(() => problem(500, 'internal_error'));
    const other = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch: boom.fetch });
    expect(await rejection(other.system.health())).toMatchObject({ code: 'internal_error', status: 500 });
    expect(boom.seen).toHaveLength(1);
  });

  it('an abort during the Retry-After wait ends the call at once', async () => {
    const { fetch } = scripted(() => problem(429, 'rate_limited', { 'retry-after': '5' }));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, apiKey: 'gth_x' });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    expect(await rejection(gh.usage.get({ signal: controller.signal }))).toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('requests', () => {
  it('accepts the base URL with or without /v1 and a trailing slash', () => {
    expect(normalizeBaseUrl('https://auth.example.com/')).toBe('https://auth.example.com');
    expect(normalizeBaseUrl('https://auth.example.com/v1')).toBe('https://auth.example.com');
    expect(normalizeBaseUrl('https://example.com/gatehouse/v1/')).toBe('https://example.com/gatehouse');
    expect(buildUrl('https://a.test', '/v1/chats', { agent_id: 'agt_1', cursor: undefined, limit: 5 })).toBe('https://a.test/v1/chats?agent_id=agt_1&limit=5');
    expect(buildUrl('https://a.test', '/v1/admin/users', { email: 'a+b@c.test' })).toBe('https://a.test/v1/admin/users?email=a%2Bb%40c.test');
    expect(() => normalizeBaseUrl('localhost:8080')).toThrow(TypeError);
  });

  it('encodes path parameters, sends the API key, JSON bodies and no credential to public operations', async () => {
    const { fetch, seen } = scripted(
      () => json({ id: 'agt_1' }),
      () => json({ id: 'usr_1' }, 201),
    );
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test/', fetch, apiKey: 'gth_secret' });
    await gh.agents.get('a/../b?c');
    expect(seen[0]!.url).toBe('http://gatehouse.test/v1/agents/a%2F..%2Fb%3Fc');
    expect(seen[0]!.headers.authorization).toBe('Bearer gth_secret');
    await gh.auth.register({ email: 'a@b.test', password: 'x'.repeat(12), name: 'A' });
    expect(seen[1]!.headers.authorization).toBeUndefined();
    expect(seen[1]!.headers['content-type']).toBe('application/json');
    await expect(gh.agents.get('')).rejects.toThrow(TypeError);
  });

  it('creating calls send a fresh Idempotency-Key each time, or the one given', async () => {
    const { fetch, seen } = scripted(
      () => json({}, 201),
      () => json({}, 201),
      () => json({}, 201),
    );
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, apiKey: 'gth_x' });
    await gh.chats.create({ agent_id: 'agt_1' });
    await gh.chats.create({ agent_id: 'agt_1' });
    await gh.chats.messages.create('cht_1', { role: 'user', content: 'hi' }, { idempotencyKey: 'mine' });
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('mine');
  });
});

describe('an operation where the session is optional (auth.verifyEmail)', () => {
  const noContent = () => new Response(null, { status: 204 });
  const session = (expiresAt: number) => ({ accessToken: 'at', refreshToken: 'rt', expiresAt, scope: '' });

  it('sends the stored session (a change of email is confirmed by its owner, signed in), never the API key', async () => {
    const { fetch, seen } = scripted(noContent, noContent);
    await createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, apiKey: 'gth_key', tokenStore: memoryTokenStore(session(Date.now() + 3_600_000)) }).auth.verifyEmail({ token: 'gthv_x' });
    await createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, apiKey: 'gth_key' }).auth.verifyEmail({ token: 'gthv_y' });
    expect(seen.map((s) => [s.url, s.headers.authorization])).toEqual([
      ['http://gatehouse.test/v1/auth/email/verify', 'Bearer at'],
      ['http://gatehouse.test/v1/auth/email/verify', undefined],
    ]);
  });

  it('goes without a session whose refresh the server refused (ended), and lets the server say whether one was needed', async () => {
    const { fetch, seen } = scripted(() => problem(401, 'invalid_token'), noContent);
    const store = memoryTokenStore(session(Date.now() - 1_000));
    await createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, tokenStore: store }).auth.verifyEmail({ token: 'gthv_x' });
    expect(seen.map((s) => [s.url, s.headers.authorization])).toEqual([
      ['http://gatehouse.test/v1/auth/refresh', undefined],
      ['http://gatehouse.test/v1/auth/email/verify', undefined],
    ]);
    expect(await store.get()).toBeNull();
  });

  it('does not hide a refresh that failed for a passing reason (offline): the session still stands', async () => {
    const { fetch } = scripted(() => problem(503, 'service_unavailable'));
    const store = memoryTokenStore(session(Date.now() - 1_000));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, tokenStore: store, maxRetries: 0 });
    expect(await rejection(gh.auth.verifyEmail({ token: 'gthv_x' }))).toMatchObject({ status: 503 });
    expect(await store.get()).not.toBeNull();
  });
});

describe('token stores', () => {
  it('web storage: round trip, corrupt or foreign data reads as signed out, missing localStorage is named', async () => {
    const data = new Map<string, string>();
    const storage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), removeItem: (k: string) => void data.delete(k) };
    const store = webStorageTokenStore(storage, 'k');
    const session = { accessToken: 'a', refreshToken: 'r', expiresAt: 1, scope: 's' };
    await store.set(session);
    expect(await store.get()).toEqual(session);
    data.set('k', '{not json');
    expect(await store.get()).toBeNull();
    expect(parseStoredSession('{"accessToken":1}')).toBeNull();
    await store.clear();
    expect(data.has('k')).toBe(false);
    // No localStorage in Node: the store can be created, and says why it cannot work when used.
    expect(() => webStorageTokenStore().get()).toThrow(/localStorage/);
  });
});

describe('pagination', () => {
  it('walks next_cursor until null', async () => {
    const pages: Record<string, { data: number[]; next_cursor: string | null }> = {
      start: { data: [1, 2], next_cursor: 'b' },
      b: { data: [3], next_cursor: 'c' },
      c: { data: [], next_cursor: null },
    };
    const asked: (string | undefined)[] = [];
    const items = await collect(async (cursor) => (asked.push(cursor), pages[cursor ?? 'start']!));
    expect(items).toEqual([1, 2, 3]);
    expect(asked).toEqual([undefined, 'b', 'c']);
    const first: number[] = [];
    for await (const n of paginate(async (cursor) => pages[cursor ?? 'start']!)) first.push(n);
    expect(first).toEqual([1, 2, 3]);
  });
});

describe('organization header', () => {
  const session = { accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() + 3_600_000, scope: 'agents:read' };
  const sse = () => new Response('event: stream.closed\ndata: {"reason":"chat_deleted"}\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } });

  it('goes with the session on calls and on a stream (as it was when the stream opened), never on public calls', async () => {
    const { fetch, seen } = scripted(() => json({ data: [], next_cursor: null }), sse, () => json({ status: 'ok' }), () => json({ data: [], next_cursor: null }));
    const gh = createGatehouse({ baseUrl: 'http://gatehouse.test', fetch, tokenStore: memoryTokenStore(session), organization: 'org_team' });
    await gh.agents.list();
    const stream = gh.chats.stream('cht_1', { transport: 'fetch' });
    gh.setOrganization(null);
    for await (const _ of stream) void _;
    await gh.system.health();
    await gh.agents.list();
    expect(seen.map((s) => s.headers['gatehouse-organization'])).toEqual(['org_team', 'org_team', undefined, undefined]);
  });
});
