import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/authenticate.js';
import { AppError } from '../../http/error-catalogue.js';
import type { AccountCache } from '../accounts/account-cache.js';
import { isTier, TIERS } from '../limits/tiers.js';
import type { WindowState } from '../limits/rate-limiter.js';

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

const present = (w: WindowState) => ({ used: w.used, remaining: w.remaining, reset_seconds: w.resetSeconds });

/** The account's budget as the limiter sees it, this request included. */
export const usageRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountCache }> = async (app, { accounts }) => {
  app.get('/usage', {
    config: { auth: 'usage:read' },
    schema: { tags: ['Account'], operationId: 'getUsage', summary: 'Rate-limit budget and use of the account', response: { 200: Type.Ref('Usage') } },
  }, async (request) => {
    const auth = requireAuth(request);
    const decision = request.rateLimit;
    const account = await accounts.get(auth.userId);
    if (!decision || !account) throw new AppError('internal_error', 'usage without an authenticated account');
    return {
      tier: isTier(account.tier) ? account.tier : 'free',
      limits: { per_minute: decision.minute.limit, per_day: decision.day.limit },
      minute: present(decision.minute),
      day: present(decision.day),
    };
  });
};
