import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { prependOnRequest } from './route-hooks.js';

/**
 * The headers every answer carries: its request id and `nosniff`; on `/v1` also `no-store`, since
 * API answers carry credentials and personal data and must never sit in a shared cache.
 */
export function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store');
}

const SETS_COMMON_HEADERS = Symbol('sets the common headers first');

/** Marks an onRequest hook that calls setCommonHeaders before anything else (the authenticate step). */
export function settingCommonHeaders<H extends object>(hook: H): H {
  return Object.assign(hook, { [SETS_COMMON_HEADERS]: true });
}

function commonHeadersHook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  setCommonHeaders(request, reply);
  done();
}

/**
 * Every answer gets the common headers from its route's first onRequest hook, so errors carry them
 * too: where that hook sets them itself (the authenticate step, marked with settingCommonHeaders)
 * nothing is added (one hook a request, not two: each hook Fastify runs costs about as much as the
 * work of a small one); on every other route this hook goes in front. Answers that no route
 * matched get them from the not-found handler (problem.ts), framework errors from theirs. Register
 * it after every other hook that prepends onRequest hooks, and before the routes.
 */
export function registerCommonHeaders(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const first = [route.onRequest ?? []].flat()[0] as { [SETS_COMMON_HEADERS]?: true } | undefined;
    if (!first?.[SETS_COMMON_HEADERS]) prependOnRequest(route, commonHeadersHook);
  });
}
