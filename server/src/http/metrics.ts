import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { HotPath } from './hot-path.js';
import { RouteHistogram } from './route-histogram.js';

/** One registry per app (tests build many apps in one process). */
export function createMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The request-duration histogram; Fastify's routes and the hot path record into the same one. */
export function createRequestDurations(registry: Registry): RouteHistogram {
  return new RouteHistogram(
    'http_request_duration_seconds',
    'HTTP request duration by route template and status',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registry,
  );
}

export function registerRequestMetrics(app: FastifyInstance, duration: RouteHistogram): void {
  const observe = (route: string) => {
    const record = duration.forRoute(route);
    return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      record(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
  };
  // The route template, never the raw URL, so label cardinality stays bounded. Each route gets
  // its own hook with its template baked in: request.routeOptions builds an object per access.
  app.addHook('onRoute', (route: RouteOptions) => {
    const hooks = Array.isArray(route.onResponse) ? route.onResponse : route.onResponse ? [route.onResponse] : [];
    route.onResponse = [...hooks, observe(route.url)] as RouteOptions['onResponse'];
  });
  const unmatched = observe('unmatched');
  app.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched(request, reply, done) : done()));
}

/** How many requests the hot path answered (the rest of the traffic went through Fastify). */
export function registerHotPathMetric(registry: Registry, hotPath: Pick<HotPath, 'answered'>): void {
  new Counter({
    name: 'gatehouse_hot_path_answers_total',
    help: 'Requests answered by the hot path in front of Fastify (GET /v1/users/me and /v1/usage from memory)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(hotPath.answered);
    },
  });
}
