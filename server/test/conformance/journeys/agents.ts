import { describe, expect, it } from 'vitest';
import { signUp, type GetContext } from '../context.js';

/** Agents: idempotent creation (replay, reuse, concurrent duplicate), pages, changes, isolation. */
export function agentsJourney(ctx: GetContext): void {
  describe('agents', () => {
    it('creates, replays, lists, reads, changes and deletes agents', async () => {
      const actor = await signUp(ctx().api, 'agents');
      const body = { name: 'Support bot', model: 'gpt-4o', instructions: 'Be kind.', metadata: { team: 'support' } };
      const create = { token: actor.access, headers: { 'idempotency-key': 'support-bot' }, json: body };
      const created = await actor.api.call('createAgent', create, 201);
      expect(created.body).toMatchObject({ ...body, description: '' });
      const replay = await actor.api.call('createAgent', create, 201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(created.body);
      const reused = await actor.api.call('createAgent', { ...create, json: { ...body, name: 'Other' } }, 422);
      expect(reused.body.code).toBe('idempotency_key_reused');

      const second = await actor.api.call('createAgent', { token: actor.access, json: { name: 'Second', model: 'claude-3' } }, 201);
      const page1 = await actor.api.call('listAgents', { token: actor.access, query: { limit: 1 } }, 200);
      expect(page1.body.data[0].id).toBe(second.body.id);
      const page2 = await actor.api.call('listAgents', { token: actor.access, query: { limit: 1, cursor: page1.body.next_cursor } }, 200);
      expect(page2.body).toMatchObject({ data: [{ id: created.body.id }], next_cursor: null });
      expect((await actor.api.call('listAgents', { token: actor.access }, 200)).body.data).toHaveLength(2);

      await actor.api.call('getAgent', { token: actor.access, path: { id: created.body.id } }, 200);
      const changed = await actor.api.call('updateAgent', { token: actor.access, path: { id: created.body.id }, json: { description: 'Answers tickets', metadata: {} } }, 200);
      expect(changed.body).toMatchObject({ description: 'Answers tickets', metadata: {} });
      await actor.api.callInvalid('updateAgent', { token: actor.access, path: { id: created.body.id }, json: {} }, 400);

      const stranger = await signUp(ctx().api, 'stranger');
      await stranger.api.call('getAgent', { token: stranger.access, path: { id: created.body.id } }, 404);
      await actor.api.call('deleteAgent', { token: actor.access, path: { id: created.body.id } }, 204);
      await actor.api.call('getAgent', { token: actor.access, path: { id: created.body.id } }, 404);
      await actor.api.call('deleteAgent', { token: actor.access, path: { id: created.body.id } }, 404);
    });

    it('answers concurrent duplicates of one Idempotency-Key with the first answer or 409', async () => {
      const actor = await signUp(ctx().api, 'race');
      const create = { token: actor.access, headers: { 'idempotency-key': 'race' }, json: { name: 'Racer', model: 'gpt-4o' } };
      const answers = await Promise.all(Array.from({ length: 6 }, () => actor.api.call('createAgent', create, [201, 409])));
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
      expect(ids.size).toBe(1);
      for (const conflict of answers.filter((a) => a.status === 409)) expect(conflict.body.code).toBe('conflict');
    });

    it('refuses agents outside the documented bounds', async () => {
      const actor = await signUp(ctx().api, 'badagents');
      const bad = [
        { name: 'x', model: '-starts-with-dash' },
        { name: 'x'.repeat(101), model: 'gpt-4o' },
        { name: 'x', model: 'gpt-4o', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
        { name: 'x', model: 'gpt-4o', unknown: true },
      ];
      for (const json of bad) {
        const answer = await actor.api.callInvalid('createAgent', { token: actor.access, json }, 400);
        expect(answer.body.code).toBe('validation_failed');
      }
    });
  });
}
