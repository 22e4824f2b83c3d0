import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { requireAuth } from './authenticate.js';
import { addResponses } from './route-hooks.js';
import { problemResponses } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A sensitive change (a new API key, a new password, a factor turned off): on an account with
     * a second factor, the session must have proved one recently, or the route answers 403
     * mfa_required before it runs. Only on routes with `auth: 'session'` or `'admin'` (an access token).
     */
    stepUp?: boolean;
  }
}

/** Checks a session's recent second factor; throws mfa_required (the mfa module implements it). */
export type RequireRecentFactor = (userId: string, sessionId: string) => Promise<void>;

/**
 * Puts the step-up check first among the preHandlers of every route marked `stepUp` (before an
 * idempotency claim, so a refused request leaves no claim behind). Register after idempotency.
 */
export function registerStepUp(app: FastifyInstance, requireRecentFactor: RequireRecentFactor): void {
  const check = async (request: FastifyRequest) => {
    const auth = requireAuth(request);
    await requireRecentFactor(auth.userId, auth.sessionId!);
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.stepUp) return;
    if (route.config.auth !== 'session' && route.config.auth !== 'admin') throw new Error(`${route.method} ${route.url}: stepUp needs auth: 'session' or 'admin'`);
    route.preHandler = [check, ...(route.preHandler ? [route.preHandler].flat() : [])];
    addResponses(route, problemResponses([403]));
  });
}
