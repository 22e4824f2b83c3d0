import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI 3.1 document is generated from the route schemas, never written by hand.
 * Schemas with an $id become named components.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gatehouse API',
        version: '1.0.0',
        description:
          'Accounts, sessions, API keys and rate limits for the agent and chat platform. Every error is RFC 9457 problem+json with a stable `code`; see /docs/errors.',
        license: { name: 'Proprietary', url: `${opts.publicUrl}/docs` },
        contact: { name: 'Gatehouse', url: `${opts.publicUrl}/docs` },
      },
      servers: [{ url: opts.publicUrl, description: 'This instance' }],
      tags: [
        { name: 'Auth', description: 'Register, log in, refresh and log out' },
        { name: 'Account', description: 'The signed-in user' },
        { name: 'Sessions', description: 'Where the account is signed in' },
        { name: 'API keys', description: 'Long-lived credentials for programs' },
        { name: 'Agents', description: 'Platform agents' },
        { name: 'Chats', description: 'Conversations with agents, and their messages' },
        { name: 'Webhooks', description: 'Signed event deliveries to your endpoints' },
        { name: 'Admin', description: 'Tiers, limits and account status (admins only)' },
        { name: 'Operations', description: 'Health, readiness, metrics' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token from /v1/auth/login, or an API key (gth_…)' },
        },
      },
    },
    // Protected routes get `security: [{ bearerAuth: [] }]` from registerAuthentication; every
    // other documented operation is public (API.md §3) and says so with an explicit empty list.
    transform: ({ schema, url }) => ({ url, schema: schema && schema.security === undefined ? { ...schema, security: [] } : schema }),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
