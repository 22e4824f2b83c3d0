import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAccount } from '../../http/authenticate.js';
import { StringEnum } from '../../http/schemas.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { limitsFor, TIERS } from '../../core/tiers.js';
import { presentUsage } from './usage.presenter.js';

const Window = Type.Object(
  { used: Type.Integer(), remaining: Type.Integer(), reset_seconds: Type.Integer({ description: 'Seconds until the window is fully replenished (minute) or the UTC day ends (day)' }) },
  { additionalProperties: false },
);

export const Usage = Type.Object(
  {
    tier: StringEnum(TIERS),
    limits: Type.Object({ per_minute: Type.Integer(), per_day: Type.Integer() }, { additionalProperties: false }),
    minute: Window,
    day: Window,
  },
  { $id: 'Usage', additionalProperties: false },
);

const config = { auth: 'usage:read' as const, budget: 'exempt' as const };

/** The account's budget as the limiter sees it; reading it spends none (config.budget). */
export const usageRoutes: FastifyPluginAsyncTypebox<{ limiter: RateLimiter }> = async (app, { limiter }) => {
  app.get('/usage', {
    config,
    schema: {
      tags: ['Account'], operationId: 'getUsage', summary: 'Rate-limit budget and use of the account',
      description: 'Reading the usage spends nothing from the budget it reports.',
      response: { 200: Type.Ref('Usage') },
    },
  }, async (request) => {
    const account = requireAccount(request);
    return presentUsage(account, await limiter.peek(account.id, limitsFor(account)));
  });
};
