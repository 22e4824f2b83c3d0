import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/authenticate.js';
import { AppError } from '../../core/errors.js';
import { assertCursor } from '../../core/pagination.js';
import { ListQuery, listOf, problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { isId } from '../../core/ids.js';
import { ALL_SCOPES } from '../tokens/scopes.js';
import { NameField } from '../users/users.schemas.js';
import { presentApiKey } from './api-keys.presenter.js';
import type { ApiKeysService } from './api-keys.service.js';
import { clientOf } from '../../core/client-info.js';
import type { SecurityLog } from '../security-log/security-log.js';

const ScopeField = StringEnum(ALL_SCOPES);

export const ApiKey = Type.Object(
  {
    id: Type.String({ example: 'key_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    name: Type.String(),
    prefix: Type.String({ description: 'First 8 characters of the key, to recognise it' }),
    last_four: Type.String(),
    scopes: Type.Array(ScopeField),
    created_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()]),
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'May lag by up to 60 s' }),
  },
  { $id: 'ApiKey', additionalProperties: false },
);

export const CreatedApiKey = Type.Object(
  {
    ...ApiKey.properties,
    key: Type.Union([Type.String(), Type.Null()], {
      description: 'The secret. Shown once, never again: store it now. Null in an Idempotency-Key replay (secrets are not kept).',
    }),
  },
  { $id: 'CreatedApiKey', additionalProperties: false },
);

const CreateApiKeyBody = Type.Object(
  {
    name: NameField,
    scopes: Type.Optional(Type.Array(ScopeField, { minItems: 1, maxItems: ALL_SCOPES.length, uniqueItems: true, description: 'Default: every scope' })),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeysService; securityLog: SecurityLog }> = async (app, { apiKeys, securityLog }) => {
  const tags = ['API keys'];
  // Only a login's access token manages keys: a leaked key cannot mint more keys.
  const config = { auth: 'session' as const, budget: 'exempt' as const };
  const notFound = () => new AppError('not_found', 'No API key with this id.');

  app.post('/api-keys', {
    config: { ...config, idempotent: true, oneTimeSecretField: 'key', locationHeader: true, stepUp: true },
    schema: { tags, operationId: 'createApiKey', summary: 'Create an API key; the secret is in this response only', body: CreateApiKeyBody, response: { 201: Type.Ref('CreatedApiKey'), ...problemResponses([400, 413, 415, 422]) } },
  }, async (request, reply) => {
    const { row, key } = await apiKeys.create(requireAuth(request).userId, request.body);
    await securityLog.record(row.user_id, 'api_key_created', clientOf(request), { api_key_id: row.id, name: row.name, scopes: row.scopes.split(' ') });
    return reply.code(201).header('Location', `/v1/api-keys/${row.id}`).send({ ...presentApiKey(row), key });
  });

  app.get('/api-keys', {
    config,
    schema: { tags, operationId: 'listApiKeys', summary: 'Active API keys, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('ApiKey')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('apiKey', cursor);
    const page = await apiKeys.list(requireAuth(request).userId, limit, cursor);
    return { data: page.rows.map(presentApiKey), next_cursor: page.nextCursor };
  });

  app.get('/api-keys/:id', {
    config,
    schema: { tags, operationId: 'getApiKey', summary: 'One API key (never its secret)', params: IdParams, response: { 200: Type.Ref('ApiKey'), ...problemResponses([404]) } },
  }, async (request) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    return presentApiKey(await apiKeys.get(requireAuth(request).userId, request.params.id));
  });

  app.delete('/api-keys/:id', {
    config,
    schema: { tags, operationId: 'revokeApiKey', summary: 'Revoke an API key; it stops working at once everywhere', params: IdParams, response: { 204: Type.Null({ description: 'Revoked' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    await apiKeys.revoke(requireAuth(request).userId, request.params.id);
    await securityLog.record(requireAuth(request).userId, 'api_key_revoked', clientOf(request), { api_key_id: request.params.id });
    return reply.code(204).send(null);
  });
};
