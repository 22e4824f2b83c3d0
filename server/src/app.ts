import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Dependencies } from './dependencies.js';
import { registerAuthentication, type AuthenticateDeps } from './http/authenticate.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerCommonHeaders } from './http/common-headers.js';
import { registerDashboard } from './http/dashboard.js';
import { registerErrorsPage } from './http/errors-page.js';
import { createMetrics, createRequestDurations, registerRequestMetrics } from './http/metrics.js';
import { trackAllowedMethods } from './http/method-router.js';
import { registerOpenApi } from './http/openapi.js';
import { frameworkErrorHandler, registerProblemHandlers } from './http/problem.js';
import { registerPublicRateLimit } from './http/public-rate-limit.js';
import { generateRequestId } from './http/request-id.js';
import { deferredChildLoggerFactory, logsAt } from './http/request-logger.js';
import { ProblemSchema } from './http/schemas.js';
import { validatorCompiler } from './http/validation.js';
import { registerIdempotency } from './http/idempotency.js';
import { AdminUser, adminRoutes } from './modules/admin/admin.routes.js';
import { Agent } from './modules/agents/agents.schemas.js';
import { chatsRoutes } from './modules/chats/chats.routes.js';
import { accountEmailRoutes } from './modules/email/account-email.routes.js';
import { SecurityEvent, securityLogRoutes } from './modules/security-log/security-log.routes.js';
import { Chat, Message } from './modules/chats/chats.schemas.js';
import { agentsRoutes } from './modules/agents/agents.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './modules/webhooks/webhooks.schemas.js';
import { ApiKey, apiKeysRoutes, CreatedApiKey } from './modules/api-keys/api-keys.routes.js';
import { appLinksRoutes } from './modules/app-links/app-links.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { TokenResponse } from './modules/auth/auth.schemas.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { Jwks, jwksRoute } from './modules/jwks/jwks.routes.js';
import { Session, sessionsRoutes } from './modules/sessions/sessions.routes.js';
import { Usage, usageRoutes } from './modules/usage/usage.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { Me, User } from './modules/users/users.schemas.js';

export interface BuildOptions {
  /** A pino logger; tests pass one writing to memory, main.ts one writing to stdout. */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
}

/** Plugins, routes and the error handler; no I/O of its own, so tests call it freely. */
export async function buildApp(deps: Dependencies, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = createMetrics();
  const durations = createRequestDurations(metrics);
  const authentication: AuthenticateDeps = {
    accessTokens: deps.accessTokens, revocations: deps.revocations, apiKeys: deps.apiKeyVerifier,
    accounts: deps.accounts, limiter: deps.limiter, clock: deps.clock,
    accountRoutes: { limiter: deps.attempts, perMinute: config.accountRateLimitPerMinute },
  };
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance, childLoggerFactory: deferredChildLoggerFactory } : { logger: false }),
    genReqId: generateRequestId,
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    // Errors Node's parser raises before a request exists (431, 408, 400) as problem+json too.
    clientErrorHandler: clientErrorHandler(config.publicUrl),
    bodyLimit: config.maxBodyBytes,
    trustProxy: config.trustProxy,
    // One compact line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // A slow client gets HEADERS_TIMEOUT to send its headers (slowloris) and REQUEST_TIMEOUT for
    // the whole request. Node checks both deadlines only every connectionsCheckingInterval (30 s
    // by default) and swaps them when headersTimeout (60 s by default) is the longer: set both,
    // check every second.
    connectionTimeout: 60_000,
    requestTimeout: config.requestTimeout * 1000,
    http: { headersTimeout: config.headersTimeout * 1000, connectionsCheckingInterval: 1_000 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // JSON only (API.md §1): Fastify's built-in text/plain parser would let plain text reach validation.
  app.removeContentTypeParser('text/plain');
  const allowedMethods = trackAllowedMethods(app);
  registerProblemHandlers(app, { publicUrl: config.publicUrl, allowedMethods });
  // Every named schema is added here, at the root: a child plugin calling addSchema would get
  // Fastify's default validator instead of ours (lenient bodies) for its routes.
  for (const schema of [ProblemSchema, User, Me, TokenResponse, Jwks, Session, ApiKey, CreatedApiKey, Usage, AdminUser, Agent, Chat, Message, SecurityEvent, WebhookEndpoint, CreatedWebhookEndpoint, WebhookDelivery]) app.addSchema(schema);

  registerCommonHeaders(app);
  // One line per request at LOG_LEVEL=info or lower. The level is fixed at start (LOG_LEVEL), so
  // at warn and above the hook is not even installed.
  if (logsAt(app.log, 'info')) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
      done();
    });
  }
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed'],
      maxAge: 600,
    });
  }

  registerRequestMetrics(app, durations);
  registerAuthentication(app, authentication);
  registerPublicRateLimit(app, { limiter: deps.attempts, perMinute: config.publicRateLimitPerMinute });
  registerIdempotency(app, { db: deps.database.db, clock: deps.clock });
  await registerOpenApi(app, { publicUrl: config.publicUrl });
  registerErrorsPage(app);

  await app.register(async (v1) => {
    const { securityLog, accountEmail } = deps;
    await v1.register(authRoutes, { users: deps.users, login: deps.login, sessions: deps.sessions, accountEmail, securityLog });
    await v1.register(accountEmailRoutes, { accountEmail });
    await v1.register(usersRoutes, { users: deps.users, securityLog, accountEmail });
    await v1.register(securityLogRoutes, { securityLog });
    await v1.register(sessionsRoutes, { sessions: deps.sessions, securityLog });
    await v1.register(apiKeysRoutes, { apiKeys: deps.apiKeys, securityLog });
    await v1.register(usageRoutes, { limiter: deps.limiter });
    await v1.register(adminRoutes, { admin: deps.admin, securityLog });
    await v1.register(agentsRoutes, { agents: deps.agents });
    await v1.register(chatsRoutes, { chats: deps.chats });
    await v1.register(webhooksRoutes, { webhooks: deps.webhooks.service });
    await v1.register(jwksRoute(deps.keyRing, { hide: false }));
    v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }, { prefix: '/v1' });
  await app.register(jwksRoute(deps.keyRing, { hide: true }));
  await app.register(appLinksRoutes(config));
  await app.register(healthRoutes({ checks: deps.readiness, metrics }));
  await registerDashboard(app);
  return app;
}
