import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/kernel/ids.js';
import { signUp, type GetContext } from '../context.js';

const HOUR_MS = 3_600_000;

/** The usage history (GET /v1/usage/history): per hour and per day, per key or the whole account. */
export function usageHistoryJourney(ctx: GetContext): void {
  describe('usage history', () => {
    it('shows the requests of a key and of the account, per hour and per day', async () => {
      const actor = await signUp(ctx().api, 'history');
      const key = (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'history', scopes: ['usage:read', 'agents:read'] } }, 201)).body;
      await actor.api.call('listAgents', { token: key.key }, 200);

      const hourly = await actor.api.call('getUsageHistory', { token: actor.access, query: { key_id: key.id } }, 200);
      expect(hourly.body).toMatchObject({ granularity: 'hour', key_id: key.id });
      expect(hourly.body.data).toHaveLength(24);
      expect(hourly.body.data[0].start).toBe(hourly.body.from);
      expect(hourly.body.data.at(-1).start).toBe(hourly.body.to);
      // The answering instance writes its own counts before it reads.
      expect(hourly.body.data.reduce((sum: number, b: { ok: number }) => sum + b.ok, 0)).toBeGreaterThanOrEqual(1);

      const daily = await actor.api.call('getUsageHistory', { token: key.key, query: { granularity: 'day' } }, 200);
      expect(daily.body).toMatchObject({ granularity: 'day', key_id: null });
      expect(daily.body.data).toHaveLength(30);
      const now = Date.now();
      const range = await actor.api.call('getUsageHistory', { token: key.key, query: { from: new Date(now - 3 * HOUR_MS).toISOString(), to: new Date(now).toISOString() } }, 200);
      expect(range.body.data.length).toBeGreaterThanOrEqual(4);
    });

    it('refuses another account\'s key (404), a range it cannot show and a malformed query (400)', async () => {
      const actor = await signUp(ctx().api, 'history-errors');
      const other = await signUp(ctx().api, 'history-other');
      const theirs = (await other.api.call('createApiKey', { token: other.access, json: { name: 'theirs' } }, 201)).body;
      for (const keyId of [theirs.id, newId('apiKey')]) {
        const missing = await actor.api.call('getUsageHistory', { token: actor.access, query: { key_id: keyId } }, 404);
        expect(missing.body.code).toBe('not_found');
      }
      const now = Date.now();
      const backwards = await actor.api.call('getUsageHistory', { token: actor.access, query: { from: new Date(now - HOUR_MS).toISOString(), to: new Date(now - 3 * HOUR_MS).toISOString() } }, 400);
      expect(backwards.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'query:/to', code: 'before_from' }] });
      const tooOld = await actor.api.call('getUsageHistory', { token: actor.access, query: { from: new Date(now - 8 * 24 * HOUR_MS).toISOString() } }, 400);
      expect(tooOld.body.errors[0]).toMatchObject({ field: 'query:/from', code: 'beyond_retention' });
      // Outside the document (it lists the values and the format): the lenient proxy forwards them.
      for (const query of [{ granularity: 'week' }, { from: 'yesterday' }]) {
        const bad = await actor.api.callInvalid('getUsageHistory', { token: actor.access, query }, 400);
        expect(bad.body.code).toBe('validation_failed');
      }
    });
  });
}
