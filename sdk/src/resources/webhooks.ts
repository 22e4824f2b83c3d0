/** Endpoints that receive signed event deliveries (scopes webhooks:read / webhooks:write). */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function webhooksResource(call: Call) {
  return {
    /** The answer's `secret` (whsec_…) verifies signatures; it is shown this once. */
    create: (body: RequestBody<'createWebhook'>, options?: CreateOptions) => call('createWebhook', { body }, options),
    list: (query?: QueryParams<'listWebhooks'>, options?: RequestOptions) => call('listWebhooks', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getWebhook', { params: { id } }, options),
    update: (id: string, body: RequestBody<'updateWebhook'>, options?: RequestOptions) => call('updateWebhook', { params: { id }, body }, options),
    delete: (id: string, options?: RequestOptions) => call('deleteWebhook', { params: { id } }, options),
    /** Queues a `webhook.test` delivery to the endpoint. */
    test: (id: string, options?: CreateOptions) => call('testWebhook', { params: { id } }, options),
    /** Filter with `status` (pending, delivered, failed). */
    deliveries: (id: string, query?: QueryParams<'listWebhookDeliveries'>, options?: RequestOptions) => call('listWebhookDeliveries', { params: { id }, query }, options),
    /**
     * Sends one delivery again (any status), with its original event: receivers see the same
     * `webhook-id` and deduplicate on it. Resolves to the delivery, pending and due now.
     */
    redeliver: (id: string, deliveryId: string, options?: CreateOptions) =>
      call('redeliverWebhookDelivery', { params: { id, delivery_id: deliveryId } }, options),
    /**
     * Sends every `failed` delivery created at or after `since` (RFC 3339; at most 30 days back)
     * again; resolves to `{ redelivered }`, at most 10,000 a call (call again for the rest).
     */
    redeliverFailed: (id: string, body: RequestBody<'redeliverFailedWebhookDeliveries'>, options?: CreateOptions) =>
      call('redeliverFailedWebhookDeliveries', { params: { id }, body }, options),
    /**
     * A new signing secret (the answer's `secret`, shown this once); the old one keeps signing
     * beside it for `overlap_seconds` (0 to 7 days; default one day), until `previous_secret_expires_at`.
     */
    rotateSecret: (id: string, body: RequestBody<'rotateWebhookSecret'> = {}, options?: CreateOptions) =>
      call('rotateWebhookSecret', { params: { id }, body }, options),
  };
}
