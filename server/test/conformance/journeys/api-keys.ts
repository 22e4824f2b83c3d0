import { describe, expect, it } from 'vitest';
import { signUp, type GetContext } from '../context.js';

/** API keys (secret shown once, idempotent creation, revocation) and the usage they spend. */
export function apiKeysJourney(ctx: GetContext): void {
  describe('API keys and usage', () => {
    it('creates a key once per Idempotency-Key, lists, reads and revokes it', async () => {
      const actor = await signUp(ctx().api, 'keys');
      const create = { token: actor.access, headers: { 'idempotency-key': 'key-1' }, json: { name: 'CI', scopes: ['usage:read', 'agents:read'] } };
      const created = await actor.api.call('createApiKey', create, 201);
      expect(created.body.key).toMatch(/^gth_/);
      expect(created.headers.get('location')).toBe(`/v1/api-keys/${created.body.id}`);
      const replay = await actor.api.call('createApiKey', create, 201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual({ ...created.body, key: null });
      const reused = await actor.api.call('createApiKey', { ...create, json: { name: 'Other' } }, 422);
      expect(reused.body.code).toBe('idempotency_key_reused');

      const expiring = await actor.api.call('createApiKey', { token: actor.access, json: { name: 'Later', expires_at: new Date(Date.now() + 86_400_000).toISOString() } }, 201);
      const page1 = await actor.api.call('listApiKeys', { token: actor.access, query: { limit: 1 } }, 200);
      expect(page1.body.data.map((k: { id: string }) => k.id)).toEqual([expiring.body.id]);
      const page2 = await actor.api.call('listApiKeys', { token: actor.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);
      expect(page2.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.id]);
      const one = await actor.api.call('getApiKey', { token: actor.access, path: { id: created.body.id } }, 200);
      expect([...one.body.scopes].sort()).toEqual(['agents:read', 'usage:read']);

      const usage = await actor.api.call('getUsage', { token: created.body.key }, 200);
      expect(usage.body.tier).toBe('free');
      const agents = await actor.api.call('listAgents', { token: created.body.key }, 200);
      expect(agents.headers.get('ratelimit-policy')).toMatch(/"minute";q=100/);
      await actor.api.call('revokeApiKey', { token: actor.access, path: { id: created.body.id } }, 204);
      await actor.api.call('getApiKey', { token: actor.access, path: { id: created.body.id } }, 404);
      await actor.api.call('getUsage', { token: created.body.key }, 401);
    });

    it("changes a key, rolls it with a grace, and a service key verifies its secrets", async () => {
      const actor = await signUp(ctx().api, 'platformkeys');
      const created = (await actor.api.call('createApiKey', {
        token: actor.access, json: { name: 'tool', scopes: ['agents:read', 'chats:read'], rate_limit: { per_minute: 50, per_day: null }, remaining: 100, refill: { amount: 100, interval: 'day' } },
      }, 201)).body;
      expect(created).toMatchObject({ rate_limit: { per_minute: 50, per_day: null }, remaining: 100, refill: { amount: 100, interval: 'day' }, previous_key_expires_at: null });
      const updated = await actor.api.call('updateApiKey', { token: actor.access, path: { id: created.id }, json: { name: 'tool v2', scopes: ['agents:read'], rate_limit: null } }, 200);
      expect(updated.body).toMatchObject({ name: 'tool v2', scopes: ['agents:read'], rate_limit: null });
      const wider = await actor.api.call('updateApiKey', { token: actor.access, path: { id: created.id }, json: { scopes: ['agents:read', 'agents:write'] } }, 400);
      expect(wider.body.errors[0]).toMatchObject({ field: '/scopes', code: 'not_narrower' });
      await actor.api.callInvalid('updateApiKey', { token: actor.access, path: { id: created.id }, json: {} }, 400);

      const roll = { token: actor.access, path: { id: created.id }, headers: { 'idempotency-key': 'roll-1' }, json: { grace_seconds: 600 } };
      const rolled = (await actor.api.call('rollApiKey', roll, 200)).body;
      expect(rolled.key).toMatch(/^gth_/);
      expect(rolled.previous_key_expires_at).not.toBeNull();
      const replay = await actor.api.call('rollApiKey', roll, 200);
      expect(replay.body).toMatchObject({ id: created.id, key: null });
      expect((await actor.api.call('rollApiKey', { ...roll, json: { grace_seconds: 0 } }, 422)).body.code).toBe('idempotency_key_reused');
      await actor.api.callInvalid('rollApiKey', { token: actor.access, path: { id: created.id }, json: { grace_seconds: 8 * 86_400 } }, 400);

      const service = await ctx().serviceKey();
      const old = await actor.api.call('verifyCredential', { token: service, json: { credential: created.key, scopes: ['agents:read'] } }, 200);
      expect(old.body).toMatchObject({ valid: true, code: 'valid', credential_type: 'api_key', user_id: actor.id, key_id: created.id, remaining: 99 });
      const fresh = await actor.api.call('verifyCredential', { token: service, json: { credential: rolled.key, count: false } }, 200);
      expect(fresh.body).toMatchObject({ valid: true, remaining: 99 });
      const wrongScope = await actor.api.call('verifyCredential', { token: service, json: { credential: rolled.key, scopes: ['chats:read'] } }, 200);
      expect(wrongScope.body).toMatchObject({ valid: false, code: 'insufficient_scope' });
      const token = await actor.api.call('verifyCredential', { token: service, json: { credential: actor.access, cost: 2 } }, 200);
      expect(token.body).toMatchObject({ valid: true, credential_type: 'access_token', session_id: expect.stringMatching(/^ses_/) });
      const junk = await actor.api.call('verifyCredential', { token: service, json: { credential: 'gth_nothing' } }, 200);
      expect(junk.body).toMatchObject({ valid: false, code: 'not_found', user_id: null, ratelimit: null });
      await actor.api.callInvalid('verifyCredential', { token: service, json: { credential: 'x', cost: 0 } }, 400);
    });

    it('refuses keys the document or the server does not allow', async () => {
      const actor = await signUp(ctx().api, 'badkeys');
      await actor.api.callInvalid('createApiKey', { token: actor.access, json: { name: 'x', scopes: ['everything'] } }, 400);
      await actor.api.callInvalid('createApiKey', { token: actor.access, json: { name: 'x', scopes: [] } }, 400);
      const past = await actor.api.call('createApiKey', { token: actor.access, json: { name: 'x', expires_at: '2001-01-01T00:00:00.000Z' } }, 400);
      expect(past.body.code).toBe('validation_failed');
      const badCursor = await actor.api.call('listApiKeys', { token: actor.access, query: { cursor: 'nope' } }, 400);
      expect(badCursor.body.code).toBe('validation_failed');
    });

    it('reports the usage of an access token, and reading it spends none', async () => {
      const actor = await signUp(ctx().api, 'usage');
      await actor.api.call('listAgents', { token: actor.access }, 200);
      const usage = await actor.api.call('getUsage', { token: actor.access }, 200);
      expect(usage.body.limits).toEqual({ per_minute: 100, per_day: 10_000 });
      expect(usage.body.day.used).toBe(1);
      expect((await actor.api.call('getUsage', { token: actor.access }, 200)).body.day.used).toBe(1);
    });
  });
}
