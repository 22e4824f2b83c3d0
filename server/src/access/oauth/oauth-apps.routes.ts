import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actingOrgId, requireAuth } from '../../http/caller.js';
import { problemResponses, StringEnum, Timestamp } from '../../http/schemas.js';
import { USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { clientOf } from '../../kernel/client-info.js';
import type { OauthApps } from './oauth-apps.js';
import type { OauthGrants } from './oauth-grants.js';

const ScopeList = Type.Array(StringEnum(USER_SCOPES), { minItems: 1, maxItems: USER_SCOPES.length, uniqueItems: true });

export const OauthApp = Type.Object(
  {
    id: Type.String({ description: 'The client_id' }),
    name: Type.String(),
    type: StringEnum(['public', 'confidential'] as const, { description: 'public: no secret (mobile, desktop, single-page, command-line apps); confidential: a server that keeps a secret' }),
    redirect_uris: Type.Array(Type.String()),
    scopes: Type.Array(Type.String(), { description: 'What the app may ask a person for' }),
    created_at: Timestamp,
  },
  { $id: 'OauthApp', additionalProperties: false },
);

const OauthAppWithSecret = Type.Object(
  { ...OauthApp.properties, client_secret: Type.Optional(Type.String({ description: 'A confidential app\'s secret: in this response only' })) },
  { additionalProperties: false },
);

export const ConnectedApp = Type.Object(
  {
    id: Type.String({ description: 'The grant' }),
    client: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    organization_id: Type.String({ description: 'The organization the app acts for' }),
    scopes: Type.Array(Type.String()),
    resource: Type.String({ description: 'What its tokens are for: the REST API or the MCP endpoint' }),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'When the app last got a token under this grant' }),
  },
  { $id: 'ConnectedApp', additionalProperties: false },
);

const CreateOauthAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    type: StringEnum(['public', 'confidential'] as const),
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 10, uniqueItems: true, description: 'https, http on 127.0.0.1 or [::1] (any port), or a reverse-domain custom scheme' }),
    scopes: ScopeList,
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/**
 * Settings → OAuth apps: an organization's admins register the apps that may ask its members
 * for a grant. Like API keys, only a login's access token manages them, for the organization the
 * request acts for.
 */
export const oauthAppsRoutes: FastifyPluginAsyncTypebox<{ apps: OauthApps }> = async (app, { apps }) => {
  const tags = ['OAuth apps'];
  const config = { auth: 'session' as const, budget: 'exempt' as const, organization: 'header' as const, role: 'admin' as const };

  app.post('/oauth-apps', {
    config: { ...config, oneTimeSecretField: 'client_secret', stepUp: 'never', guests: 'refused' }, // an app gets nothing until a person allows it; a guest registers none
    schema: { tags, operationId: 'createOauthApp', summary: "Register an OAuth app; a confidential app's secret is in this response only", body: CreateOauthAppBody, response: { 201: OauthAppWithSecret, ...problemResponses([400, 403, 413, 415]) } },
  }, async (request, reply) => reply.code(201).send(await apps.create(actingOrgId(request), requireAuth(request).userId, request.body)));

  app.get('/oauth-apps', {
    config,
    schema: { tags, operationId: 'listOauthApps', summary: "The organization's OAuth apps", response: { 200: Type.Object({ data: Type.Array(Type.Ref('OauthApp')) }, { additionalProperties: false }), ...problemResponses([]) } },
  }, async (request) => ({ data: await apps.list(actingOrgId(request)) }));

  app.delete('/oauth-apps/:id', {
    config: { ...config, stepUp: 'never' }, // removing takes access away: every grant to the app ends
    schema: { tags, operationId: 'deleteOauthApp', summary: 'Remove an app; every grant made to it ends at once', params: IdParams, response: { 204: Type.Null({ description: 'Removed' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    await apps.remove(actingOrgId(request), request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/oauth-apps/:id/rotate-secret', {
    config: { ...config, oneTimeSecretField: 'client_secret', stepUp: 'always' }, // a new secret is a new credential
    schema: { tags, operationId: 'rotateOauthAppSecret', summary: "A new secret for a confidential app (in this response only); the old one stops at once", params: IdParams, response: { 200: OauthAppWithSecret, ...problemResponses([404, 409]) } },
  }, async (request) => apps.rotateSecret(actingOrgId(request), request.params.id));
};

/** Settings → Connected apps: the grants a person made, and ending one. */
export const connectedAppsRoutes: FastifyPluginAsyncTypebox<{ grants: OauthGrants }> = async (app, { grants }) => {
  const tags = ['OAuth apps'];
  const config = { auth: 'session' as const, budget: 'exempt' as const };

  app.get('/users/me/connected-apps', {
    config,
    schema: { tags, operationId: 'listConnectedApps', summary: 'Apps the account has allowed to act for it, newest first', response: { 200: Type.Object({ data: Type.Array(Type.Ref('ConnectedApp')) }, { additionalProperties: false }), ...problemResponses([]) } },
  }, async (request) => ({ data: await grants.list(requireAuth(request).userId) }));

  app.delete('/users/me/connected-apps/:id', {
    config: { ...config, stepUp: 'never' }, // takes access away
    schema: { tags, operationId: 'revokeConnectedApp', summary: "End an app's grant; its tokens stop working at once on every instance", params: IdParams, response: { 204: Type.Null({ description: 'Ended' }), ...problemResponses([404]) } },
  }, async (request, reply) => {
    await grants.revoke(requireAuth(request).userId, request.params.id, clientOf(request));
    return reply.code(204).send(null);
  });
};
