import { buildSharedSerializer } from './http/shared-serializers.js';
import type { Logger } from 'pino';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Dependencies } from './dependencies.js';
import { ORGANIZATION_HEADER, registerAuthentication, type AuthenticateDeps } from './access/index.js';
import { createAccessLog } from './http/access-log.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerCommonHeaders } from './http/common-headers.js';
import { registerDashboard } from './http/dashboard.js';
import { registerErrorsPage } from './http/errors-page.js';
import { createMetrics, createRequestDurations, observeUnmatched, registerRequestMetrics } from './http/metrics.js';
import { trackAllowedMethods } from './http/method-router.js';
import { registerOpenApi } from './http/openapi.js';
import { frameworkErrorHandler, registerProblemHandlers } from './http/problem.js';
import { registerPublicRateLimit } from './http/public-rate-limit.js';
import { generateRequestId } from './http/request-id.js';
import { deferredChildLoggerFactory, logsAt } from './http/request-logger.js';
import { ProblemSchema } from './http/schemas.js';
import { validatorCompiler } from './http/validation.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerRoutePolicy } from './http/route-policy.js';
import { ROOT_MODULES, V1_MODULES } from './modules.js';
import { protectedResourceMetadataUrl } from './platform/index.js';

export interface BuildOptions {
  /** A pino logger; tests pass one writing to memory, main.ts one writing to stdout. */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  /** The registry the app records into; main.ts passes the one its metrics listener serves. */
  metrics?: Registry;
}

/** Plugins, routes and the error handler; no I/O of its own, so tests call it freely. */
export async function buildApp(deps: Dependencies, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = options.metrics ?? createMetrics();
  const durations = createRequestDurations(metrics);
  const moduleDeps = { ...deps, metrics };
  const authentication: AuthenticateDeps = {
    accessTokens: deps.accessTokens, revocations: deps.revocations, apiKeys: deps.apiKeyVerifier,
    accounts: deps.accounts, organizations: deps.organizationCache, limiter: deps.limiter, clock: deps.clock,
    accountRoutes: { limiter: deps.attempts, perMinute: config.accountRateLimitPerMinute },
    keyUses: deps.apiKeys, usage: deps.usageCounter,
    mcpResourceMetadataUrl: protectedResourceMetadataUrl(config.publicUrl),
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
    // One compiled serializer per distinct response schema, not per route and status (http/shared-serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: buildSharedSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // JSON only: Fastify's built-in text/plain parser would let plain text reach validation.
  app.removeContentTypeParser('text/plain');
  const allowedMethods = trackAllowedMethods(app);
  registerProblemHandlers(app, { publicUrl: config.publicUrl, allowedMethods, onNotFound: observeUnmatched(durations) });
  // Every named schema is added here, at the root: a child plugin calling addSchema would get
  // Fastify's default validator instead of ours (lenient bodies) for its routes.
  app.addSchema(ProblemSchema);
  for (const module of [...V1_MODULES, ...ROOT_MODULES]) for (const schema of module.schemas ?? []) app.addSchema(schema);

  registerAuthentication(app, authentication);
  registerPublicRateLimit(app, { limiter: deps.attempts, perMinute: config.publicRateLimitPerMinute });
  registerCommonHeaders(app); // after every hook that puts itself first on a route: it must come first
  // One line per request at LOG_LEVEL=info or lower. The level is fixed at start (LOG_LEVEL), so
  // at warn and above the hook is not even installed.
  if (logsAt(app.log, 'info')) {
    const writeAccessLine = createAccessLog(app.log as unknown as Logger);
    app.addHook('onResponse', (request, reply, done) => {
      writeAccessLine({ reqId: request.id, method: request.method, url: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) });
      done();
    });
  }
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      // Every request header the API reads: a page on another origin sends them after the preflight.
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'Last-Event-ID', ORGANIZATION_HEADER],
      exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed'],
      maxAge: 600,
    });
  }

  registerRequestMetrics(app, durations);
  registerIdempotency(app, { db: deps.database.db, clock: deps.clock });
  // After idempotency: its checks run before the claim.
  registerRoutePolicy(app, { requireRecentFactor: deps.mfa.requireRecentFactor, keyScopes: deps.apiKeys.scopesOf });
  await registerOpenApi(app, { publicUrl: config.publicUrl });
  registerErrorsPage(app);

  await app.register(async (v1) => {
    for (const module of V1_MODULES) await module.register(v1, moduleDeps);
    v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }, { prefix: '/v1' });
  for (const module of ROOT_MODULES) await module.register(app, moduleDeps);
  await registerDashboard(app, { productName: deps.config.productName });
  return app;
}
