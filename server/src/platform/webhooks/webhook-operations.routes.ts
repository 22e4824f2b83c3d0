import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditActorOf } from '../../access/index.js';
import { AppError } from '../../kernel/errors.js';
import { isId } from '../../kernel/ids.js';
import { problemResponses } from '../../http/schemas.js';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_REDELIVER_PER_CALL, RedeliverFailedBody, RedeliveredCount, RotateWebhookSecretBody } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), delivery_id: Type.String({ maxLength: 64 }) });

/**
 * Redelivery and secret rotation (issue 22). Writes like the rest of the endpoint API: scope
 * webhooks:write, so the admin role or higher in the organization. Rotation needs no step-up,
 * like creating an endpoint (which shows a secret the same way); it is in the audit log.
 */
export function webhookOperationsRoutes(app: App, webhooks: WebhooksService, endpointId: (id: string) => string): void {
  const tags = ['Webhooks'];

  app.post('/webhooks/:id/deliveries/:delivery_id/redeliver', {
    config: { auth: 'webhooks:write', idempotent: true },
    schema: {
      tags, operationId: 'redeliverWebhookDelivery', summary: 'Send one delivery again, with its original event and webhook-id',
      description: 'Any status: the delivery is pending and due now, its attempts kept (new ones are added). Receivers deduplicate on `webhook-id`, which stays the original. 409 when the endpoint is disabled, or the delivery has had 50 attempts.',
      params: DeliveryParams, response: { 202: Type.Ref('WebhookDelivery'), ...problemResponses([400, 404, 409, 422]) },
    },
  }, async (request, reply) => {
    const { id, delivery_id: deliveryId } = request.params;
    if (!isId('delivery', deliveryId)) throw new AppError('not_found', 'No delivery with this id for this endpoint.');
    return reply.code(202).send(await webhooks.redeliver(auditActorOf(request), endpointId(id), deliveryId));
  });

  app.post('/webhooks/:id/redeliver', {
    config: { auth: 'webhooks:write', idempotent: true },
    schema: {
      tags, operationId: 'redeliverFailedWebhookDeliveries', summary: 'Send every failed delivery since a time again',
      description: `Every \`failed\` delivery of this endpoint created at or after \`since\`, oldest first, at most ${MAX_REDELIVER_PER_CALL} a call (if \`redelivered\` says that many, call again for the rest). \`since\` must not be in the future (field code in_future) nor older than the events kept, 30 days (beyond_retention). 409 when the endpoint is disabled.`,
      params: IdParams, body: RedeliverFailedBody, response: { 202: RedeliveredCount, ...problemResponses([400, 404, 409, 422]) },
    },
  }, async (request, reply) => reply.code(202).send(await webhooks.redeliverFailed(auditActorOf(request), endpointId(request.params.id), request.body.since)));

  app.post('/webhooks/:id/rotate-secret', {
    config: { auth: 'webhooks:write', idempotent: true, oneTimeSecretField: 'secret' },
    // The body is optional (the default overlap): a request without one is read as `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    schema: {
      tags, operationId: 'rotateWebhookSecret', summary: 'A new signing secret; the old one keeps signing for the overlap. The secret is in this response only',
      description: 'Until `previous_secret_expires_at` every delivery carries two signatures in `webhook-signature` (new secret first), so receivers verify with either while they switch. A rotation during an overlap drops the secret before the current one: at most two sign.',
      params: IdParams, body: RotateWebhookSecretBody, response: { 200: Type.Ref('CreatedWebhookEndpoint'), ...problemResponses([400, 404, 422]) },
    },
  }, async (request) => {
    const overlap = request.body.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
    const { row, secret } = await webhooks.rotateSecret(auditActorOf(request), endpointId(request.params.id), overlap);
    return { ...webhooks.present(row), secret };
  });
}
