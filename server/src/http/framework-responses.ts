import type { FastifyInstance, RouteOptions } from 'fastify';
import { addResponses } from './route-hooks.js';
import { problemResponses } from './schemas.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Answers the framework gives before a handler runs, documented on every route that can get
 * them (found by the fuzz suite: they were real but missing from the OpenAPI document):
 * - a POST/PUT/PATCH/DELETE body is read even when the route declares none, so a broken one gets
 *   400 malformed_json, 413 or 415;
 * - a path parameter with broken percent-encoding gets 400 invalid_request, and any validated
 *   part (params, query, headers, body) can fail with 400 validation_failed.
 */
export function documentFrameworkErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const validated = route.url.includes(':') || ['params', 'querystring', 'headers', 'body'].some((part) => schema[part] !== undefined);
    const readsBody = methods.some((m) => BODY_METHODS.has(m));
    const statuses = [...(validated || readsBody ? [400] : []), ...(readsBody ? [413, 415] : [])];
    // Undocumented routes (hide) stay out of the document either way.
    if (statuses.length > 0 && !schema.hide) addResponses(route, problemResponses(statuses));
  });
}
