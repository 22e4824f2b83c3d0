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
  };
}
