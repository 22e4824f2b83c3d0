import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { RouteHistogram } from './route-histogram.js';

/** One registry per app (tests build many apps in one process). */
export function createMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The request-duration histogram, per route template and status. */
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
}

/**
 * The same for answers no route matched, under the template 'unmatched': called by the not-found
 * handler (onRoute never sees it), so the other requests need no second onResponse hook.
 */
export function observeUnmatched(duration: RouteHistogram): (request: FastifyRequest, reply: FastifyReply) => void {
  const record = duration.forRoute('unmatched');
  return (request, reply) => void reply.raw.once('finish', () => record(request.method, reply.statusCode, reply.elapsedTime / 1000));
}
