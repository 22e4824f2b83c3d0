import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAccount } from '../../http/authenticate.js';
import { AppError } from '../../http/error-catalogue.js';
import type { HotRoute } from '../../http/hot-path.js';
import { TIERS } from '../limits/tiers.js';
import { presentUsage } from './usage.presenter.js';

const Window = Type.Object(
  { used: Type.Integer(), remaining: Type.Integer(), reset_seconds: Type.Integer({ description: 'Seconds until the window is fully replenished (minute) or the UTC day ends (day)' }) },
  { additionalProperties: false },
);

export const Usage = Type.Object(
  {
    tier: Type.Union(TIERS.map((t) => Type.Literal(t))),
    limits: Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer() }, { additionalProperties: false }),
    minute: Window,
    day: Window,
  },
  { $id: 'Usage', additionalProperties: false },
);

const config = { auth: 'usage:read' as const };

/** The hot path's answer of GET /v1/usage (http/hot-path.ts): the same requirement and presenter. */
export const usageHotRoute: HotRoute = {
  url: '/v1/usage',
  requirement: config.auth,
  body: (account, decision) => JSON.stringify(presentUsage(account, decision)),
};

/** The account's budget as the limiter sees it, this request included. */
export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/usage', {
    config,
    schema: { tags: ['Account'], operationId: 'getUsage', summary: 'Rate-limit budget and use of the account', response: { 200: Type.Ref('Usage') } },
  }, (request) => {
    // The decision and the account the authenticate step produced for this very request.
    const decision = request.rateLimit;
    const account = requireAccount(request);
    if (!decision) throw new AppError('internal_error', 'usage without an authenticated account');
    return presentUsage(account, decision);
  });
};
