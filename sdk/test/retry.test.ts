/**
 * 429 handling against live servers: the account budget (free tier, 100 per minute) and the
 * per-IP limit of the public auth endpoints. Retried only when safe, after Retry-After, within bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, memoryTokenStore } from '../src/index.js';
import { recordingFetch, rejection, signUp, type SignedIn } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server?.stop());

/** Spends the account's minute budget with raw requests until the server answers 429. */
async function exhaust(user: SignedIn): Promise<number> {
  const token = (await user.gh.session.get())!.accessToken;
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${server.base}/v1/agents`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status === 429) return Number(res.headers.get('retry-after'));
  }
  throw new Error('the budget never ran out');
}

/** A client on user's session that records its requests. */
function watched(user: SignedIn, options: Parameters<typeof createGatehouse>[0] extends infer O ? Partial<O> : never = {}) {
  const recorder = recordingFetch();
  return { recorder, gh: createGatehouse({ baseUrl: server.base, tokenStore: user.store, fetch: recorder.fetch, ...options }) };
}

describe('account rate limit (429 rate_limited)', () => {
  it('waits Retry-After and then succeeds for a GET', async () => {
    const user = await signUp(server);
    const retryAfter = await exhaust(user);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    const { gh, recorder } = watched(user);
    const started = Date.now();
    const agents = await gh.agents.list();
    expect(agents.data).toEqual([]);
    const attempts = recorder.calls.filter((c) => c.path === '/v1/agents');
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    const asked = Number(attempts[0]!.responseHeaders.get('retry-after'));
    // It waited what the server asked (timer granularity aside) before trying again.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(asked * 1000 - 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(asked * 1000 - 50);
  });

  it('retries a creating POST that carries an Idempotency-Key, with the same key', async () => {
    const user = await signUp(server);
    await exhaust(user);
    const { gh, recorder } = watched(user);
    const agent = await gh.agents.create({ name: 'patient', model: 'gpt-4o' });
    expect(agent.name).toBe('patient');
    const posts = recorder.calls.filter((c) => c.method === 'POST' && c.path === '/v1/agents');
    expect(posts.map((c) => c.status)).toEqual([429, 201]);
    expect(posts[0]!.headers['idempotency-key']).toBeTruthy();
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
  });

  it('does not retry a PATCH: the typed 429 carries Retry-After', async () => {
    const user = await signUp(server);
    const agent = await user.gh.agents.create({ name: 'before', model: 'gpt-4o' });
    await exhaust(user);
    const { gh, recorder } = watched(user);
    const error = await rejection(gh.agents.update(agent.id, { name: 'after' }));
    expect(isGatehouseError(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: expect.any(Number), problem: expect.objectContaining({ window: 'minute' }) });
    expect(recorder.count('PATCH', `/v1/agents/${agent.id}`)).toBe(1);
  });

  it('manages the account while the budget is spent: reading usage and keys answers at once', async () => {
    const user = await signUp(server);
    await exhaust(user);
    const { gh, recorder } = watched(user);
    expect((await gh.usage.get()).minute.remaining).toBe(0);
    expect((await gh.apiKeys.list()).data).toEqual([]);
    expect(recorder.calls.map((c) => c.status)).toEqual([200, 200]);
  });

  it('throws at once when retries are off, or Retry-After is longer than allowed or than the time left', async () => {
    const user = await signUp(server);
    await exhaust(user);
    for (const options of [{ maxRetries: 0 }, { maxRetryWaitMs: 100 }, { timeoutMs: 300 }]) {
      const { gh, recorder } = watched(user, options);
      const started = Date.now();
      expect(await rejection(gh.agents.list())).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Date.now() - started).toBeLessThan(900); // Retry-After is ≥ 1 s: no wait happened
      expect(recorder.count('GET', '/v1/agents')).toBe(1);
    }
  });

  it('gives up after maxRetries', async () => {
    const user = await signUp(server);
    const recorder = recordingFetch();
    // Right before each attempt goes out (the first and the retry) the budget is spent, so both
    // are refused whatever the scheduling: a slot frees every 600 ms at 100/min, and spending it
    // earlier left a window in which a slow machine let the first attempt through.
    const gh = createGatehouse({
      baseUrl: server.base,
      tokenStore: user.store,
      maxRetries: 1,
      fetch: async (input, init) => {
        await exhaust(user);
        return recorder.fetch(input, init);
      },
    });
    expect(await rejection(gh.agents.list())).toMatchObject({ code: 'rate_limited' });
    expect(recorder.calls.map((c) => c.status)).toEqual([429, 429]);
  });
});

describe('per-IP limit of the public auth endpoints', () => {
  let strict: LiveServer;
  beforeAll(async () => {
    strict = await startLiveServer({ PUBLIC_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => strict?.stop());

  it('surfaces 429 rate_limited on login as a typed error (a login POST is not retried)', async () => {
    const recorder = recordingFetch();
    const gh = createGatehouse({ baseUrl: strict.base, fetch: recorder.fetch, tokenStore: memoryTokenStore() });
    const email = uniqueEmail();
    await gh.auth.register({ email, password: STRONG_PASSWORD, name: 'Limited' });
    for (let i = 0; i < 3; i++) await gh.auth.login({ username: email, password: STRONG_PASSWORD });
    const error = await rejection(gh.auth.login({ username: email, password: STRONG_PASSWORD }));
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryAfterSeconds: expect.any(Number) });
    expect(recorder.count('POST', '/v1/auth/login')).toBe(4);

    // A refresh refused by the limiter is not the token's fault: the session is kept.
    for (let i = 0; i < 3; i++) await gh.auth.refresh().catch(() => undefined);
    const before = await gh.session.get();
    expect(await rejection(gh.auth.refresh())).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(await gh.session.get()).toEqual(before);
  });
});
