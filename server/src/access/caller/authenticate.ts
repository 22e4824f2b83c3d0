import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Eventually } from '../../kernel/eager.js';
import { setRateLimitHeaders } from '../../http/rate-limit-headers.js';
import { setCommonHeaders, settingCommonHeaders } from '../../http/common-headers.js';
import { addResponses, prependOnRequest } from '../../http/route-hooks.js';
import { problemResponses } from '../../http/schemas.js';
import { routePolicy, type RoutePolicy } from '../../http/route-policy.js';
import { createCallerResolver, type CallerDeps, type Resolution, type ResolveCaller } from './resolve-caller.js';

export type AuthenticateDeps = CallerDeps;

/**
 * The authenticate step of one protected route, as its onRequest hook (before the body is even
 * parsed, so anonymous callers cannot make us read bodies): resolveCaller decides, and the request
 * carries who is calling, or the refusal is the answer. Either way the answer carries the common
 * headers and, when the budget was counted, the RateLimit headers. A callback hook, so a request
 * whose caller was decided at once goes on in the same turn.
 */
function authenticateHook(resolveCaller: ResolveCaller, policy: RoutePolicy, now: () => number) {
  function apply(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, resolution: Resolution): void {
    if ('refusal' in resolution) {
      if (resolution.rateLimit) setRateLimitHeaders(reply, resolution.rateLimit, now());
      return done(resolution.refusal);
    }
    const { caller } = resolution;
    if (caller.rateLimit) setRateLimitHeaders(reply, caller.rateLimit, now());
    request.auth = caller.auth;
    request.account = caller.account;
    request.organization = caller.membership;
    request.rateLimit = caller.rateLimit;
    done();
  }
  return settingCommonHeaders(function authenticateRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    setCommonHeaders(request, reply);
    let resolution: Eventually<Resolution>;
    try {
      resolution = resolveCaller(request, policy);
    } catch (error) {
      return done(error as Error);
    }
    if (resolution instanceof Promise) resolution.then((resolved) => apply(request, reply, done, resolved), done);
    else apply(request, reply, done, resolution);
  });
}

/**
 * Every route that declares `config.auth` gets the check in onRequest, plus the security
 * requirement and the 401/403/429 responses in its OpenAPI description. Routes cannot forget
 * either half.
 */
export function registerAuthentication(app: FastifyInstance, deps: AuthenticateDeps): void {
  const resolveCaller = createCallerResolver(deps);
  const now = () => deps.clock.now();
  app.decorateRequest('auth', null);
  app.decorateRequest('rateLimit', null);
  app.decorateRequest('account', null);
  app.decorateRequest('organization', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    const policy = routePolicy(route.config);
    if (!policy.auth) return;
    prependOnRequest(route, authenticateHook(resolveCaller, policy, now));
    // A route that spends nothing of its caller's can answer no 429 of its own. One that reads
    // Gatehouse-Organization answers a malformed one with 400 invalid_request (found by fuzzing:
    // GET /v1/users/me and /v1/usage answered it undocumented).
    const { budget, organization } = policy;
    const statuses = [...(organization === 'header' ? [400] : []), 401, 403, ...(organization === 'path' ? [404] : []), ...(budget === 'caller-free' ? [] : [429])];
    addResponses(route, problemResponses(statuses), { security: [{ bearerAuth: [] }] });
  });
}
