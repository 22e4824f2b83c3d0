import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { NameField, requireAccount, type SecurityLog } from '../../identity/index.js';
import { requireAuth } from '../../http/caller.js';
import { requireOrganization } from '../../http/caller.js';
import { AppError } from '../../kernel/errors.js';
import { assertCursor } from '../../kernel/pagination.js';
import { ListQuery, listOf, problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { isId } from '../../kernel/ids.js';
import { KEY_SCOPES } from '../../kernel/access-terms/scopes.js';
import { REFILL_INTERVALS } from './key-uses.js';
import { MAX_ROLL_GRACE_SECONDS } from './api-keys.service.js';
import { presentApiKey } from './api-keys.presenter.js';
import type { ApiKeysService, KeyActor } from './api-keys.service.js';
import type { Clock } from '../../kernel/clock.js';
import { clientOf } from '../../kernel/client-info.js';

const ScopeField = StringEnum(KEY_SCOPES);

/** The signed-in user managing keys of the organization the request acts for (Gatehouse-Organization). */
function actorOf(request: FastifyRequest): KeyActor {
  const { org, role } = requireOrganization(request);
  return { userId: requireAuth(request).userId, serviceRole: requireAccount(request).role, orgId: org.id, orgRole: role, client: clientOf(request) };
}

const MAX_PER_MINUTE = 1_000_000;
const MAX_PER_DAY = 1_000_000_000;
const MAX_USES = 1_000_000_000;

const RateLimit = Type.Object(
  {
    per_minute: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_PER_MINUTE }), Type.Null()]),
    per_day: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_PER_DAY }), Type.Null()]),
  },
  { additionalProperties: false, description: "The key's own budget, inside its account's: a request must fit both. Null: that window is the account's alone." },
);
const Refill = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_USES }),
    interval: StringEnum(REFILL_INTERVALS, { description: 'day: at each UTC midnight; month: on the 1st of each month (UTC)' }),
  },
  { additionalProperties: false, description: '`remaining` is set back to `amount` at the first use of each period' },
);
const Remaining = Type.Integer({ minimum: 0, maximum: MAX_USES, description: 'Uses left: each admitted request that spends from the budget (or a verification of `cost` n) spends one (n); managing the account spends none' });

/** The optional limits of a key, in the create and update bodies. */
const LimitFields = {
  rate_limit: Type.Optional(Type.Union([Type.Partial(RateLimit, { additionalProperties: false }), Type.Null()])),
  remaining: Type.Optional(Type.Union([Remaining, Type.Null()])),
  refill: Type.Optional(Type.Union([Refill, Type.Null()], { description: 'Needs `remaining` (given alone, remaining starts at the amount)' })),
};

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
    rate_limit: Type.Union([RateLimit, Type.Null()]),
    remaining: Type.Union([Remaining, Type.Null()], { description: 'Uses left; null: unlimited' }),
    refill: Type.Union([Refill, Type.Null()]),
    previous_key_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'After a roll: when the secret before it stops working (null: it already has, or no roll)' }),
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
    scopes: Type.Optional(Type.Array(ScopeField, {
      minItems: 1, maxItems: KEY_SCOPES.length, uniqueItems: true,
      description: 'Default: every scope of the platform routes. credentials:verify (a service key) is for administrators only.',
    })),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    ...LimitFields,
  },
  { additionalProperties: false },
);
const UpdateApiKeyBody = Type.Object(
  {
    name: Type.Optional(NameField),
    scopes: Type.Optional(Type.Array(ScopeField, { minItems: 1, maxItems: KEY_SCOPES.length, uniqueItems: true, description: "Only a subset of the key's scopes" })),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    ...LimitFields,
  },
  { additionalProperties: false, minProperties: 1 },
);
const RollApiKeyBody = Type.Object(
  {
    grace_seconds: Type.Optional(Type.Integer({
      minimum: 0, maximum: MAX_ROLL_GRACE_SECONDS, default: 0,
      description: 'How long the old secret keeps working beside the new one (0, the default: refused at once; at most 7 days)',
    })),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeysService; securityLog: SecurityLog; clock: Clock }> = async (app, { apiKeys, securityLog, clock }) => {
  const present = (row: Parameters<typeof presentApiKey>[0]) => presentApiKey(row, clock.now());
  const tags = ['API keys'];
  // Only a login's access token manages keys: a leaked key cannot mint more keys.
  // Keys belong to the organization the request acts for (Gatehouse-Organization).
  const config = { auth: 'session' as const, budget: 'exempt' as const, organization: 'header' as const };
  const notFound = () => new AppError('not_found', 'No API key with this id.');

  app.post('/api-keys', {
    config: { ...config, idempotent: true, oneTimeSecretField: 'key', locationHeader: true, stepUp: 'always', role: 'member' },
    schema: { tags, operationId: 'createApiKey', summary: 'Create an API key; the secret is in this response only', body: CreateApiKeyBody, response: { 201: Type.Ref('CreatedApiKey'), ...problemResponses([400, 403, 413, 415, 422]) } },
  }, async (request, reply) => {
    const { row, key } = await apiKeys.create(actorOf(request), request.body);
    await securityLog.record(row.user_id, 'api_key_created', clientOf(request), { api_key_id: row.id, name: row.name, scopes: row.scopes.split(' ') });
    return reply.code(201).header('Location', `/v1/api-keys/${row.id}`).send({ ...present(row), key });
  });

  app.patch('/api-keys/:id', {
    config: { ...config, stepUp: 'always', key: 'holding-its-scopes' },
    schema: {
      tags, operationId: 'updateApiKey', summary: 'Rename a key, narrow its scopes, change its expiry or its own limits; at once on every instance',
      params: IdParams, body: UpdateApiKeyBody, response: { 200: Type.Ref('ApiKey'), ...problemResponses([400, 403, 404, 413, 415]) },
    },
  }, async (request) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    const row = await apiKeys.update(actorOf(request), request.params.id, request.body);
    await securityLog.record(row.user_id, 'api_key_updated', clientOf(request), { api_key_id: row.id, fields: Object.keys(request.body) });
    return present(row);
  });

  app.post('/api-keys/:id/roll', {
    config: { ...config, idempotent: true, oneTimeSecretField: 'key', stepUp: 'always', key: 'holding-its-scopes' },
    // The body is optional (no grace): a request without one is read as `{}`.
    preValidation: (request, _reply, done) => {
      request.body ??= {};
      done();
    },
    schema: {
      tags, operationId: 'rollApiKey', summary: 'A new secret for the key; the old one works for the grace period, then is refused. The secret is in this response only',
      params: IdParams, body: RollApiKeyBody, response: { 200: Type.Ref('CreatedApiKey'), ...problemResponses([400, 404, 413, 415]) },
    },
  }, async (request) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    const grace = request.body.grace_seconds ?? 0;
    const { row, key } = await apiKeys.roll(actorOf(request), request.params.id, grace);
    await securityLog.record(row.user_id, 'api_key_rolled', clientOf(request), { api_key_id: row.id, grace_seconds: grace });
    return { ...present(row), key };
  });

  app.get('/api-keys', {
    config,
    schema: { tags, operationId: 'listApiKeys', summary: 'Active API keys, newest first', querystring: ListQuery, response: { 200: listOf(Type.Ref('ApiKey')), ...problemResponses([400]) } },
  }, async (request) => {
    const { limit, cursor } = request.query;
    assertCursor('apiKey', cursor);
    const page = await apiKeys.list(requireOrganization(request).org.id, limit, cursor);
    return { data: page.rows.map(present), next_cursor: page.nextCursor };
  });

  app.get('/api-keys/:id', {
    config: { ...config, key: 'reading' },
    schema: { tags, operationId: 'getApiKey', summary: 'One API key (never its secret)', params: IdParams, response: { 200: Type.Ref('ApiKey'), ...problemResponses([404]) } },
  }, async (request) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    return present(await apiKeys.get(requireOrganization(request).org.id, request.params.id));
  });

  app.delete('/api-keys/:id', {
    // Revoking takes power away: an admin stops a leaked key of anyone in the organization, with what they have.
    config: { ...config, stepUp: 'never', key: 'revoking' },
    schema: { tags, operationId: 'revokeApiKey', summary: 'Revoke an API key; it stops working at once everywhere', params: IdParams, response: { 204: Type.Null({ description: 'Revoked' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    if (!isId('apiKey', request.params.id)) throw notFound();
    await apiKeys.revoke(actorOf(request), request.params.id);
    await securityLog.record(requireAuth(request).userId, 'api_key_revoked', clientOf(request), { api_key_id: request.params.id });
    return reply.code(204).send(null);
  });
};
