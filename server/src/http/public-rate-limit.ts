import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { AttemptLimiter } from '../kernel/limits/limiter.js';
import { AppError } from '../kernel/errors.js';
import { addResponses, prependOnRequest } from './route-hooks.js';
import { problemResponses } from './schemas.js';

/**
 * Per-IP budget for the public auth endpoints: each route with `config.publicLimit`
 * spends from its group's bucket. The client IP is the socket's unless TRUST_PROXY lets Fastify
 * take X-Forwarded-For.
 */
export function registerPublicRateLimit(app: FastifyInstance, deps: { limiter: AttemptLimiter; perMinute: number }): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const group = route.config?.publicLimit;
    if (!group) return;
    const check = async (request: FastifyRequest) => {
      const decision = await deps.limiter.take([{ key: `public:${group}:${request.ip}`, limit: deps.perMinute, windowSeconds: 60 }]);
      if (!decision.allowed) {
        throw new AppError('rate_limited', `Too many requests from this address; retry in ${decision.retryAfterSeconds} s.`, {
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
          window: 'minute',
          retry_after: decision.retryAfterSeconds,
        });
      }
    };
    prependOnRequest(route, check);
    addResponses(route, problemResponses([429]));
  });
}
