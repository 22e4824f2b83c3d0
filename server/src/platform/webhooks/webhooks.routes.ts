import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actingOrgId, requireOrganization } from '../../http/caller.js';
import { auditActorOf } from '../../access/index.js';
import { requireAuth } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { CreateWebhookBody, DeliveryListQuery, UpdateWebhookBody } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';
import { webhookOperationsRoutes } from './webhook-operations.routes.js';
import { maySeeExcerpts, withoutExcerpts } from './excerpt-visibility.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  const tags = ['Webhooks'];
  const endpointId = (id: string) => {
    if (!isId('webhook', id)) throw new AppError('not_found', 'No webhook endpoint with this id.');
    return id;
  };

  app.post('/webhooks', {
    config: { auth: 'webhooks:write', idempotent: true, oneTimeSecretField: 'secret', locationHeader: true },
    schema: {
      tags, operationId: 'createWebhook', summary: 'Create a webhook endpoint; the signing secret is shown once',
      description: 'The URL must resolve to public addresses (private, loopback, link-local and metadata addresses are refused with field codes in /docs/errors). At most 20 endpoints per account.',
      body: CreateWebhookBody, response: { 201: Type.Ref('CreatedWebhookEndpoint'), ...problemResponses([400, 409, 413, 415, 422]) },
    },
  }, async (request, reply) => {
    const { row, secret } = await webhooks.create(auditActorOf(request), request.body);
    return reply.code(201).header('Location', `/v1/webhooks/${row.id}`).send({ ...webhooks.present(row), secret });
  });

  app.get('/webhooks', {
    config: { auth: 'webhooks:read' },
    schema: { tags, operationId: 'listWebhooks', summary: 'Webhook endpoints of the account, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('WebhookEndpoint')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('webhook', cursor);
    const page = await webhooks.list(actingOrgId(request), limit, cursor);
    return { data: page.rows.map(webhooks.present), next_cursor: page.nextCursor };
  });

  app.get('/webhooks/:id', {
    config: { auth: 'webhooks:read' },
    schema: { tags, operationId: 'getWebhook', summary: 'One webhook endpoint (without its secret)', params: IdParams, response: { 200: Type.Ref('WebhookEndpoint'), ...problemResponses([404]) } },
  }, async (request) => webhooks.present(await webhooks.get(actingOrgId(request), endpointId(request.params.id))));

  app.patch('/webhooks/:id', {
    config: { auth: 'webhooks:write' },
    schema: { tags, operationId: 'updateWebhook', summary: 'Change url, events, description or enabled', params: IdParams, body: UpdateWebhookBody, response: { 200: Type.Ref('WebhookEndpoint'), ...problemResponses([400, 404, 413, 415]) } },
  }, async (request) => webhooks.present(await webhooks.update(auditActorOf(request), endpointId(request.params.id), request.body)));

  app.delete('/webhooks/:id', {
    config: { auth: 'webhooks:write' },
    schema: { tags, operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    await webhooks.delete(auditActorOf(request), endpointId(request.params.id));
    return reply.code(204).send(null);
  });

  app.post('/webhooks/:id/test', {
    config: { auth: 'webhooks:write', idempotent: true },
    schema: {
      tags, operationId: 'testWebhook', summary: 'Send a webhook.test event to this endpoint only',
      params: IdParams, response: { 202: Type.Ref('WebhookDelivery'), ...problemResponses([400, 404, 409, 422]) },
    },
  }, async (request, reply) => reply.code(202).send(await webhooks.sendTest(actingOrgId(request), endpointId(request.params.id))));

  app.get('/webhooks/:id/deliveries', {
    config: { auth: 'webhooks:read' },
    schema: {
      tags, operationId: 'listWebhookDeliveries', summary: 'Deliveries to this endpoint, newest first, each with its attempts',
      params: IdParams, querystring: DeliveryListQuery, response: { 200: listOf(Type.Ref('WebhookDelivery')), ...problemResponses([400, 404]) },
    },
  }, async (request) => {
    const { limit, cursor, status } = request.query;
    assertCursor('delivery', cursor);
    const page = await webhooks.listDeliveries(actingOrgId(request), endpointId(request.params.id), limit, cursor, status);
    const shown = maySeeExcerpts(requireAuth(request), requireOrganization(request).role) ? page.rows : withoutExcerpts(page.rows);
    return { data: shown, next_cursor: page.nextCursor };
  });

  webhookOperationsRoutes(app, webhooks, endpointId);
};
