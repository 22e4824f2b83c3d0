import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authorizationFailure } from '../../access/index.js';
import { actingOrgId, requireAuth, requireOrganization } from '../../http/caller.js';
import { requireAccount } from '../../identity/index.js';
import type { McpHandler } from './mcp.module.js';

/** The request headers the MCP transport reads; the rest stay with Fastify. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'] as const;

/**
 * `POST /v1/mcp`: the platform as an MCP server (Streamable HTTP, JSON answers, no sessions).
 * The authenticate step admits only an app's token bound to this resource (config.resource) and
 * spends one request of the organization's budget per POST; each tool then checks its scope as
 * its REST route does. GET (a server-to-client stream) and DELETE (ending a session) have nothing
 * to serve without sessions: 405, as the transport's specification allows.
 */
export const mcpRoutes: FastifyPluginAsyncTypebox<{ handle: McpHandler; endpoint: string }> = async (app, { handle, endpoint }) => {
  app.post('/mcp', {
    config: { auth: 'any', resource: 'mcp' },
    // MCP's own protocol (JSON-RPC), described by its specification, not by the OpenAPI document.
    schema: { hide: true },
  }, async (request, reply) => {
    const auth = requireAuth(request);
    const headers = new Headers();
    for (const name of TRANSPORT_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const answer = await handle(new Request(endpoint, { method: 'POST', headers }), request.body, {
      orgId: actingOrgId(request),
      requestId: String(request.id),
      refusal: (scope) => authorizationFailure(auth, scope, requireAccount(request).role, requireOrganization(request).role),
    });
    for (const [name, value] of answer.headers) reply.header(name, value);
    return reply.code(answer.status).send(answer.text === '' ? null : answer.text);
  });
};

/**
 * The protected resource metadata of the MCP endpoint (RFC 9728), at the path its 401s name:
 * an MCP client learns from it that Gatehouse is the authorization server to send the person to.
 */
export function protectedResourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl}/.well-known/oauth-protected-resource/v1/mcp`;
}

export function protectedResourceRoute(document: { resource: string; authorizationServer: string; scopes: readonly string[] }) {
  const body = {
    resource: document.resource,
    authorization_servers: [document.authorizationServer],
    bearer_methods_supported: ['header'],
    scopes_supported: document.scopes,
    resource_name: 'Gatehouse MCP server',
    resource_signing_alg_values_supported: ['EdDSA'],
  };
  return async (app: FastifyInstance) => {
    app.get('/.well-known/oauth-protected-resource/v1/mcp', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return body;
    });
  };
}
