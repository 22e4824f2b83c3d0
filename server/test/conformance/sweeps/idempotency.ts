import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Call } from '../contract-client.js';
import { signUp, uniqueEmail, type Actor, type GetContext } from '../context.js';
import { BUDGET_EXEMPT } from './operations.js';

/** How to make one valid creating request per idempotent operation (the ones taking Idempotency-Key). */
type Recipe = (actor: Actor, receiverUrl: string) => Promise<Call>;

async function agentOf(actor: Actor): Promise<string> {
  return (await actor.api.call('createAgent', { token: actor.access, json: { name: 'Fixture', model: 'gpt-4o' } }, 201)).body.id;
}
async function chatOf(actor: Actor): Promise<string> {
  return (await actor.api.call('createChat', { token: actor.access, json: { agent_id: await agentOf(actor) } }, 201)).body.id;
}

const RECIPES: Record<string, Recipe> = {
  createApiKey: async () => ({ json: { name: 'raced' } }),
  rollApiKey: async (actor) => ({
    path: { id: (await actor.api.call('createApiKey', { token: actor.access, json: { name: 'rolled' } }, 201)).body.id },
    json: { grace_seconds: 60 },
  }),
  createAgent: async () => ({ json: { name: 'Raced', model: 'gpt-4o' } }),
  createChat: async (actor) => ({ json: { agent_id: await agentOf(actor) } }),
  createMessage: async (actor) => ({ path: { id: await chatOf(actor) }, json: { role: 'user', content: 'raced' } }),
  createWebhook: async (_actor, url) => ({ json: { url, events: ['*'] } }),
  testWebhook: async (actor, url) => ({
    path: { id: (await actor.api.call('createWebhook', { token: actor.access, json: { url, events: ['*'] } }, 201)).body.id },
  }),
  redeliverWebhookDelivery: async (actor, url) => {
    const id = (await actor.api.call('createWebhook', { token: actor.access, json: { url, events: ['webhook.test'] } }, 201)).body.id;
    return { path: { id, delivery_id: (await actor.api.call('testWebhook', { token: actor.access, path: { id } }, 202)).body.id } };
  },
  redeliverFailedWebhookDeliveries: async (actor, url) => ({
    path: { id: (await actor.api.call('createWebhook', { token: actor.access, json: { url, events: ['*'] } }, 201)).body.id },
    json: { since: new Date(Date.now() - 60_000).toISOString() },
  }),
  rotateWebhookSecret: async (actor, url) => ({
    path: { id: (await actor.api.call('createWebhook', { token: actor.access, json: { url, events: ['*'] } }, 201)).body.id },
    json: { overlap_seconds: 60 },
  }),
  createOrganization: async () => ({ json: { name: 'Raced' } }),
  createOrganizationInvitation: async (actor) => ({
    path: { id: (await actor.api.call('createOrganization', { token: actor.access, json: { name: 'Inviting' } }, 201)).body.id },
    json: { email: uniqueEmail('raced-invitee'), role: 'viewer' },
  }),
};

const CONCURRENT = 8;

/**
 * Idempotency-Key on every operation that takes it: duplicates sent at once get the first answer
 * or 409 conflict, never a second resource and never an undocumented status. Whether a 409 shows
 * up depends on the requests interleaving in the server: on PostgreSQL they do; on embedded SQLite
 * they cannot (coverage.ts), so there one round only checks the replay side.
 */
export function idempotencySweeps(ctx: GetContext): void {
  describe('every idempotent operation: concurrent duplicates', () => {
    it('the recipes cover exactly the operations documenting Idempotency-Key', () => {
      const idempotent = ctx().api.operations().filter((op) => op.headerParams.includes('idempotency-key')).map((op) => op.operationId);
      expect(idempotent.sort()).toEqual(Object.keys(RECIPES).sort());
    });

    it('answer the first answer or 409 conflict, and create one resource', async () => {
      const { stack, postgres } = ctx();
      // Where requests interleave, a few rounds make a 409 certain enough for coverage.ts to demand it.
      const rounds = postgres ? 4 : 1;
      const admin = await ctx().admin();
      const racer = await signUp(ctx().api, 'racer');
      // Rounds of concurrent requests spend more than a free account's minute.
      await admin.api.call('adminUpdateUser', { token: admin.access, path: { id: racer.id }, json: { tier: 'pro' } }, 200);
      for (const [operationId, recipe] of Object.entries(RECIPES)) {
        // The account's own operations spend no budget but share a small per-account allowance
        // (SERVER_LIMITS.accountRoutesPerMinute), which rounds of them together would exceed: each races as an account of its own.
        const actor = BUDGET_EXEMPT.has(operationId) ? await signUp(ctx().api, 'racer') : racer;
        const call = await recipe(actor, stack.receiver.url);
        for (let round = 0; round < rounds; round++) {
          const key = `race-${randomBytes(6).toString('hex')}`;
          const request = { ...call, token: actor.access, headers: { 'idempotency-key': key } };
          const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => actor.api.call(operationId, request, [200, 201, 202, 409])));
          const created = new Set(answers.filter((a) => a.status < 300).map((a) => a.body.id));
          expect(created.size, `${operationId}: one resource per key`).toBe(1);
          for (const conflict of answers.filter((a) => a.status === 409)) expect(conflict.body.code).toBe('conflict');
          if (answers.some((a) => a.status === 409)) break;
        }
      }
    });
  });
}
