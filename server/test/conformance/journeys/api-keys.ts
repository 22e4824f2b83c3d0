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
