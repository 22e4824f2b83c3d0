import { describe, expect, it } from 'vitest';
import type { Answer } from '../contract-client.js';
import { signUp, type Actor, type GetContext } from '../context.js';

const WEBHOOKS_PER_ACCOUNT = 20;

/** Polls the deliveries list (through the proxy, like a dashboard would) until `status` shows up. */
async function waitForDelivery(actor: Actor, endpointId: string, status: string): Promise<Answer> {
  for (let i = 0; i < 40; i++) {
    const list = await actor.api.call('listWebhookDeliveries', { token: actor.access, path: { id: endpointId }, query: { status } }, 200);
    if (list.body.data.length > 0) return list;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no ${status} delivery for ${endpointId}`);
}

/** Webhook endpoints: one-time secret, test deliveries to a real receiver, disable, limits. */
export function webhooksJourney(ctx: GetContext): void {
  describe('webhooks', () => {
    it('creates an endpoint, sends it a test event, lists the delivery, changes and deletes it', async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'webhooks');
      const create = { token: actor.access, headers: { 'idempotency-key': 'hook-1' }, json: { url: stack.receiver.url, events: ['agent.*', 'chat.message.created'], description: 'Runtime' } };
      const endpoint = await actor.api.call('createWebhook', create, 201);
      expect(endpoint.body.secret).toMatch(/^whsec_/);
      const replay = await actor.api.call('createWebhook', create, 201);
      expect(replay.body).toEqual({ ...endpoint.body, secret: null });
      const id = endpoint.body.id as string;

      expect((await actor.api.call('listWebhooks', { token: actor.access, query: { limit: 5 } }, 200)).body.data).toHaveLength(1);
      expect((await actor.api.call('getWebhook', { token: actor.access, path: { id } }, 200)).body).not.toHaveProperty('secret');

      const testOnce = { token: actor.access, path: { id }, headers: { 'idempotency-key': 'test-1' } };
      const test = await actor.api.call('testWebhook', testOnce, 202);
      expect(test.body).toMatchObject({ endpoint_id: id, event_type: 'webhook.test' });
      expect((await actor.api.call('testWebhook', testOnce, 202)).body.id).toBe(test.body.id);
      const other = await actor.api.call('createWebhook', { token: actor.access, json: { url: stack.receiver.url, events: ['*'] } }, 201);
      const reused = await actor.api.call('testWebhook', { ...testOnce, path: { id: other.body.id } }, 422);
      expect(reused.body.code).toBe('idempotency_key_reused');
      const delivered = await waitForDelivery(actor, id, 'delivered');
      expect(delivered.body.data[0].attempts[0].status_code).toBe(200);
      expect(stack.receiver.received.some((r) => r.headers['webhook-id'] === delivered.body.data[0].event_id)).toBe(true);
      const firstPage = await actor.api.call('listWebhookDeliveries', { token: actor.access, path: { id }, query: { limit: 1 } }, 200);
      expect(firstPage.body.data).toHaveLength(1);

      const disabled = await actor.api.call('updateWebhook', { token: actor.access, path: { id }, json: { enabled: false } }, 200);
      expect(disabled.body).toMatchObject({ enabled: false, disabled_reason: expect.any(String) });
      const conflict = await actor.api.call('testWebhook', { token: actor.access, path: { id } }, 409);
      expect(conflict.body.code).toBe('conflict');
      await actor.api.call('updateWebhook', { token: actor.access, path: { id }, json: { enabled: true, description: null } }, 200);
      await actor.api.callInvalid('updateWebhook', { token: actor.access, path: { id }, json: { events: ['no.such.event'] } }, 400);
      const badUrl = await actor.api.call('createWebhook', { token: actor.access, json: { url: 'ftp://example.com/hook', events: ['*'] } }, 400);
      expect(badUrl.body.code).toBe('validation_failed');
      await actor.api.callInvalid('listWebhookDeliveries', { token: actor.access, path: { id }, query: { status: 'lost' } }, 400);

      await actor.api.call('deleteWebhook', { token: actor.access, path: { id } }, 204);
      await actor.api.call('getWebhook', { token: actor.access, path: { id } }, 404);
      await actor.api.call('listWebhookDeliveries', { token: actor.access, path: { id } }, 404);
    });

    it(`refuses endpoint ${WEBHOOKS_PER_ACCOUNT + 1} of an account with 422 limit_reached`, async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'hooklimit');
      for (let i = 0; i < WEBHOOKS_PER_ACCOUNT; i++) {
        await actor.api.call('createWebhook', { token: actor.access, json: { url: `${stack.receiver.url}/${i}`, events: ['*'] } }, 201);
      }
      const full = await actor.api.call('createWebhook', { token: actor.access, json: { url: stack.receiver.url, events: ['*'] } }, 422);
      expect(full.body.code).toBe('limit_reached');
    });
  });
}
