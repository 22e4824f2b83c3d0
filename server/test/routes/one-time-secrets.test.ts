import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/** Idempotent creations that return a secret once must not keep that secret for replays. */
describe(`one-time secrets and Idempotency-Key replays (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    token = (await t.signUp()).tokens.access_token;
  });
  afterAll(() => t.close());

  const post = (url: string, payload: object, key: string) =>
    t.request({ method: 'POST', url, headers: { ...bearer(token), 'idempotency-key': key }, payload });

  it.each([
    ['/v1/api-keys', { name: 'ci' }, 'key'],
    ['/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['agent.*'] }, 'secret'],
  ] as const)('%s: the replay is the same resource with %s null, and the secret is stored nowhere in clear', async (url, body, field) => {
    const first = await post(url, body, `once-${field}`);
    expect(first.statusCode).toBe(201);
    const secret = first.json()[field] as string;
    expect(secret.length).toBeGreaterThan(20);
    const replay = await post(url, body, `once-${field}`);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual({ ...first.json(), [field]: null });
    const stored = await t.deps.database.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(secret);
  });
});
