import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import { problemResponses } from '../../http/schemas.js';
import { clientOf } from '../../kernel/client-info.js';
import type { OauthConsent } from "./oauth-consent.js";
import { ENGINE_PATHS, OAUTH_ROUTES, type AuthorizationServer } from './authorization-server.js';

/**
 * The engine's paths under /oauth (ENGINE_PATHS; docs/adr/0009-protocol-engines.md): the request
 * goes to it raw, its body unread by Fastify, and it answers in OAuth's own words. Registered in a plugin of its own
 * so that the content-type parser that leaves bodies alone applies to nothing else.
 */
const BEGINS_A_FLOW = new Set<string>([OAUTH_ROUTES.authorization, OAUTH_ROUTES.device_authorization, OAUTH_ROUTES.code_verification]);

export function oauthEngineRoutes(server: AuthorizationServer) {
  return async (app: FastifyInstance) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const url of ENGINE_PATHS) {
      app.route({
        method: ['GET', 'POST', 'DELETE', 'PUT', 'OPTIONS'],
        url,
        // Beginning a flow writes a row (an interaction, a device code): per-IP limited like sign-in.
        config: BEGINS_A_FLOW.has(url) ? { publicLimit: 'oauth-flow', browserPage: true } : {},
        schema: { hide: true },
        handler: (request, reply) => {
          // The common headers were set on the reply, which a hand-over does not send: the engine's answer carries them itself.
          for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
          reply.hijack();
          return server.engine().then((engine) => engine.callback()(request.raw, reply.raw));
        },
      });
    }
  };
}

// The engine's uids are 21+ URL-safe characters; a short segment (`details`, a dot segment a client folded) is no interaction.
const InteractionParams = Type.Object({ uid: Type.String({ minLength: 16, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) });

export const OauthInteraction = Type.Object(
  {
    client: Type.Object({
      id: Type.String(),
      name: Type.String(),
      registered_by: Type.Union([
        Type.Object({ organization_id: Type.String(), organization_name: Type.String() }, { additionalProperties: false }),
        Type.Null(),
      ], { description: 'The organization that registered the app: show it, so a person can tell an app of their own organization from another\'s' }),
    }, { additionalProperties: false }),
    redirect_uri: Type.String({ description: 'Where the person is sent back to' }),
    scopes: Type.Array(Type.String(), { description: 'The platform scopes the app asks for (those it may ask for)' }),
    offline_access: Type.Boolean({ description: 'The app keeps access while the person is away (it is registered for refresh tokens)' }),
    resource: Type.String({ description: 'What the token will be for: the REST API (PUBLIC_URL/v1) or the MCP endpoint' }),
    remembered_organization_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The person allowed as much before (same app, resource and scopes, for this organization): the page goes on at once with continueOauthInteraction',
    }),
  },
  { $id: 'OauthInteraction', additionalProperties: false },
);

/**
 * The consent step of an authorization, for the dashboard's page: what the app asks for, and the
 * person's answer. Both are under the interaction's path, where the cookie that binds the
 * interaction to the browser that began it is sent, and both need the person's session.
 */
export const oauthInteractionRoutes: FastifyPluginAsyncTypebox<{ consent: OauthConsent }> = async (app, { consent }) => {
  const tags = ['OAuth'];

  app.get('/oauth/interaction/:uid', { schema: { hide: true, params: InteractionParams } }, async (request, reply) =>
    reply.redirect(`/oauth/consent?interaction=${encodeURIComponent(request.params.uid)}`, 303));

  app.get('/oauth/interaction/:uid/details', {
    config: { auth: 'session', budget: 'exempt' },
    schema: {
      tags, operationId: 'getOauthInteraction', summary: 'What an app asks a person to allow (the consent page reads this)',
      params: InteractionParams, response: { 200: Type.Ref('OauthInteraction'), ...problemResponses([404]) },
    },
  }, async (request, reply) => consent.details(request.raw, reply.raw, requireAuth(request).userId));

  app.post('/oauth/interaction/:uid/decision', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'always' }, // it gives an app access, as a new API key would
    schema: {
      tags, operationId: 'decideOauthInteraction', summary: "The person's answer: allow (for one organization) or deny",
      params: InteractionParams,
      body: Type.Object({
        decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
        organization_id: Type.Optional(Type.String({ maxLength: 40, description: 'The organization the app acts for (default: the personal one)' })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ redirect_to: Type.String() }, { additionalProperties: false }), ...problemResponses([404, 409]) },
    },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    if (request.body.decision === 'deny') return { redirect_to: await consent.deny(request.raw, reply.raw) };
    return { redirect_to: await consent.allow(request.raw, reply.raw, auth.userId, request.body.organization_id, clientOf(request)) };
  });

  app.post('/oauth/interaction/:uid/continue', {
    config: { auth: 'session', budget: 'exempt', stepUp: 'never' }, // gives nothing new: the app gets what the person allowed before
    schema: {
      tags, operationId: 'continueOauthInteraction', summary: 'Go on with the consent the person gave before (when the details name a remembered organization)',
      params: InteractionParams, response: { 200: Type.Object({ redirect_to: Type.String() }, { additionalProperties: false }), ...problemResponses([404, 409]) },
    },
  }, async (request, reply) => ({ redirect_to: await consent.continueRemembered(request.raw, reply.raw, requireAuth(request).userId) }));
};


