import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { completeOpenApiDocument, operationFacts, type OperationFacts } from './openapi-contract.js';
import { setPageHeaders } from './page-headers.js';

/**
 * The Swagger UI at /docs: its own scripts and styles only (it has no inline script; its React
 * components set inline styles), calls to this origin only for "Try it out" (the document's server
 * is relative: whatever host name the page was opened on), and never inside a frame: the page
 * holds whatever token is pasted into "Authorize".
 */
export function docsCsp(): string {
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
    "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
  ].join('; ');
}

/**
 * The OpenAPI 3.1 document is generated from the route schemas, never written by hand.
 * Schemas with an $id become named components.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { publicUrl: string }): Promise<void> {
  const facts = new Map<string, OperationFacts>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gatehouse API',
        version: '1.0.0',
        description:
          'Accounts, sessions, API keys and rate limits for the agent and chat platform. Every error is RFC 9457 problem+json with a stable `code`; see /docs/errors.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Gatehouse', url: `${opts.publicUrl}/docs` },
      },
      // Relative: "Try it out" calls the host the page was opened on (localhost, 127.0.0.1, a proxy's name).
      servers: [{ url: '/', description: 'This instance' }],
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
    // other documented operation is public and says so with an explicit empty list.
    // What the hooks do to each operation is noted here and written into the document at the end.
    transform: ({ schema, url, route }) => {
      const operationId = (schema as { operationId?: string } | undefined)?.operationId;
      if (operationId) facts.set(operationId, operationFacts(route.config));
      return { url, schema: schema && schema.security === undefined ? { ...schema, security: [] } : schema };
    },
    transformObject: (document) => {
      if (!('openapiObject' in document)) throw new Error('an OpenAPI 3 document was expected');
      return completeOpenApiDocument(document.openapiObject as Parameters<typeof completeOpenApiDocument>[0], facts);
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    // Every /docs answer (page, static files, /docs/json): the CSP through the plugin's own option,
    // the rest for browsers that ignore frame-ancestors, and no Referer leaving the page.
    staticCSP: docsCsp(),
    uiHooks: {
      onRequest: (_request, reply, done) => {
        setPageHeaders(reply);
        done();
      },
    },
  });
}
