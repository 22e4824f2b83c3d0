import type { onRequestHookHandler, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';

/** Runs `hook` before the route's own onRequest hooks (cross-cutting checks come first). */
export function prependOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  const existing = route.onRequest ? [route.onRequest].flat() : [];
  route.onRequest = [hook, ...existing];
}

/** Adds documented responses a cross-cutting hook can produce; the route's own win. */
export function addResponses(route: RouteOptions, responses: Record<number, unknown>, extra: Record<string, unknown> = {}): void {
  const schema = (route.schema ??= {}) as Record<string, unknown> & { response?: Record<number, TSchema> };
  Object.assign(schema, extra);
  schema.response = { ...responses, ...schema.response } as Record<number, TSchema>;
}
