/**
 * Creating calls keep their Idempotency-Key where the runtime has no crypto.randomUUID (React
 * Native's Hermes): a version 4 UUID from crypto.getRandomValues, or from the client's own
 * `randomBytes` where there is no Web Crypto at all. Only a runtime with neither sends none.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatehouse, type FetchLike } from '../src/index.js';
import { uuidV4 } from '../src/idempotency.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A server that answers every POST with 201 and remembers the headers it got. */
function recorder() {
  const seen: Array<Record<string, string>> = [];
  const fetch: FetchLike = async (_input, init) => {
    seen.push({ ...(init.headers as Record<string, string>) });
    return new Response(JSON.stringify({ id: 'agt_x', name: 'a', model: 'm', description: '', instructions: '', metadata: {}, created_at: '2026-11-28T00:00:00.000Z', updated_at: '2026-11-28T00:00:00.000Z' }), { status: 201, headers: { 'content-type': 'application/json' } });
  };
  return { seen, fetch };
}

const create = async (options: { randomBytes?: (n: number) => Uint8Array } = {}) => {
  const server = recorder();
  await createGatehouse({ baseUrl: 'https://auth.example.com', apiKey: 'gth_test', fetch: server.fetch, ...options }).agents.create({ name: 'a', model: 'm' });
  return server.seen[0]!['idempotency-key'];
};

describe('Idempotency-Key without crypto.randomUUID', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('makes version 4 UUIDs from random bytes', () => {
    expect(uuidV4(new Uint8Array(16))).toBe('00000000-0000-4000-8000-000000000000');
    expect(uuidV4(new Uint8Array(16).fill(255))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(uuidV4(randomBytes(16))).toMatch(V4);
  });

  it('uses crypto.randomUUID where it exists', async () => {
    vi.stubGlobal('crypto', { randomUUID: () => 'from-random-uuid' });
    expect(await create()).toBe('from-random-uuid');
  });

  it('sends one from crypto.getRandomValues when randomUUID is missing (Hermes with a getRandomValues polyfill)', async () => {
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => randomBytes(a.length).copy(a) && a });
    const keys = [await create(), await create()];
    for (const key of keys) expect(key).toMatch(V4);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('sends one from the client\'s randomBytes where there is no Web Crypto at all, and none with neither', async () => {
    vi.stubGlobal('crypto', undefined);
    expect(await create({ randomBytes: (n) => randomBytes(n) })).toMatch(V4);
    expect(await create()).toBeUndefined();
  });
});
