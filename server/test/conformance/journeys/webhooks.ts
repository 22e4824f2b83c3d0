import { describe, expect, it } from 'vitest';
import type { Answer } from '../contract-client.js';
import { signUp, type Actor, type GetContext } from '../context.js';

const WEBHOOKS_PER_ORGANIZATION = 20;

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

    it('redelivers a delivery and the failed ones since a time, rotates the secret (issue 22)', async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'hookops');
      const as = { token: actor.access };
      const id = (await actor.api.call('createWebhook', { ...as, json: { url: stack.receiver.url, events: ['webhook.test'] } }, 201)).body.id as string;
      const first = (await actor.api.call('testWebhook', { ...as, path: { id } }, 202)).body;
      const delivered = (await waitForDelivery(actor, id, 'delivered')).body.data[0];
      expect(delivered.attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'ok' });
      const arrivals = (eventId: string) => stack.receiver.received.filter((r) => r.headers['webhook-id'] === eventId);

      // Any status may be sent again: the same event, so the same webhook-id.
      const once = { ...as, path: { id, delivery_id: first.id }, headers: { 'idempotency-key': 'redeliver-1' } };
      const again = await actor.api.call('redeliverWebhookDelivery', once, 202);
      expect(again.body).toMatchObject({ id: first.id, event_id: first.event_id, status: 'pending', attempt_count: 1 });
      expect((await actor.api.call('redeliverWebhookDelivery', once, 202)).headers.get('idempotent-replayed')).toBe('true');
      const otherDelivery = { ...once, path: { id, delivery_id: (await actor.api.call('testWebhook', { ...as, path: { id } }, 202)).body.id } };
      expect((await actor.api.call('redeliverWebhookDelivery', otherDelivery, 422)).body.code).toBe('idempotency_key_reused');
      for (let i = 0; i < 40 && arrivals(first.event_id).length < 2; i++) await new Promise((r) => setTimeout(r, 250));
      expect(arrivals(first.event_id)).toHaveLength(2);

      const hourAgo = new Date(Date.now() - 3600_000).toISOString();
      const bulk = { ...as, path: { id }, json: { since: hourAgo }, headers: { 'idempotency-key': 'redeliver-all-1' } };
      expect((await actor.api.call('redeliverFailedWebhookDeliveries', bulk, 202)).body).toEqual({ redelivered: 0 });
      expect((await actor.api.call('redeliverFailedWebhookDeliveries', { ...bulk, json: { since: new Date().toISOString() } }, 422)).body.code).toBe('idempotency_key_reused');
      const future = await actor.api.call('redeliverFailedWebhookDeliveries', { ...as, path: { id }, json: { since: new Date(Date.now() + 3600_000).toISOString() } }, 400);
      expect(future.body.errors).toEqual([expect.objectContaining({ field: '/since', code: 'in_future' })]);
      await actor.api.callInvalid('redeliverFailedWebhookDeliveries', { ...as, path: { id }, json: {} }, 400);

      const rotation = { ...as, path: { id }, json: { overlap_seconds: 600 }, headers: { 'idempotency-key': 'rotate-1' } };
      const rotated = await actor.api.call('rotateWebhookSecret', rotation, 200);
      expect(rotated.body).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) });
      expect((await actor.api.call('rotateWebhookSecret', rotation, 200)).body).toEqual({ ...rotated.body, secret: null });
      expect((await actor.api.call('rotateWebhookSecret', { ...rotation, json: { overlap_seconds: 0 } }, 422)).body.code).toBe('idempotency_key_reused');
      await actor.api.callInvalid('rotateWebhookSecret', { ...as, path: { id }, json: { overlap_seconds: 604_801 } }, 400);
      expect((await actor.api.call('getWebhook', { ...as, path: { id } }, 200)).body.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);
      const signed = (await actor.api.call('testWebhook', { ...as, path: { id } }, 202)).body;
      for (let i = 0; i < 40 && arrivals(signed.event_id).length < 1; i++) await new Promise((r) => setTimeout(r, 250));
      expect(String(arrivals(signed.event_id)[0]?.headers['webhook-signature']).split(' ')).toHaveLength(2);

      // A disabled endpoint would fail whatever is sent: enable it first.
      await actor.api.call('updateWebhook', { ...as, path: { id }, json: { enabled: false } }, 200);
      expect((await actor.api.call('redeliverWebhookDelivery', { ...as, path: { id, delivery_id: first.id } }, 409)).body.code).toBe('conflict');
      expect((await actor.api.call('redeliverFailedWebhookDeliveries', { ...as, path: { id }, json: { since: hourAgo } }, 409)).body.code).toBe('conflict');
      await actor.api.call('deleteWebhook', { ...as, path: { id } }, 204);
    });

    it(`refuses endpoint ${WEBHOOKS_PER_ORGANIZATION + 1} of an organization with 422 limit_reached`, async () => {
      const { stack } = ctx();
      const actor = await signUp(ctx().api, 'hooklimit');
      for (let i = 0; i < WEBHOOKS_PER_ORGANIZATION; i++) {
        await actor.api.call('createWebhook', { token: actor.access, json: { url: `${stack.receiver.url}/${i}`, events: ['*'] } }, 201);
      }
      const full = await actor.api.call('createWebhook', { token: actor.access, json: { url: stack.receiver.url, events: ['*'] } }, 422);
      expect(full.body.code).toBe('limit_reached');
    });
  });
}
