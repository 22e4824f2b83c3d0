import { budgetKeyOf } from './budget-key.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/caller.js';
import { requireOrganization } from '../../http/caller.js';
import { problemResponses, StringEnum } from '../../http/schemas.js';
import type { RateLimiter } from '../../kernel/limits/limiter.js';
import { limitsFor, TIERS } from '../../kernel/access-terms/tiers.js';
import { presentUsage } from './usage.presenter.js';
import { GRANULARITIES } from './usage-buckets.js';
import type { UsageHistoryService } from './usage-history.service.js';

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

const BucketStart = (description: string) => Type.String({ format: 'date-time', example: '2026-11-22T09:00:00.000Z', description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const UsageHistory = Type.Object(
  {
    granularity: StringEnum(GRANULARITIES),
    key_id: Type.Union([Type.String(), Type.Null()], { description: 'The API key shown; null: the whole account (every key and session)' }),
    from: BucketStart('Start of the first bucket'),
    to: BucketStart('Start of the last bucket'),
    data: Type.Array(
      Type.Object(
        {
          start: BucketStart('Start of the bucket (UTC hour or day)'),
          ok: Count('Requests admitted'),
          rate_limited: Count('Requests refused with 429: budget or uses spent'),
          unauthorized: Count('Requests refused with 401 whose account is known: an expired key, an old secret past its grace, a revoked session'),
          forbidden: Count('Requests refused with 403: scope, session required, account disabled, admin only'),
        },
        { additionalProperties: false },
      ),
      { description: 'One entry per bucket from `from` to `to` (zeros where nothing was counted), oldest first' },
    ),
  },
  { $id: 'UsageHistory', additionalProperties: false },
);

const UsageHistoryQuery = Type.Object(
  {
    granularity: Type.Optional(StringEnum(GRANULARITIES, { default: 'hour', description: 'UTC hours (kept 7 days) or UTC days (kept 90 days)' })),
    key_id: Type.Optional(Type.String({ maxLength: 64, description: 'One of the account\'s API keys (revoked ones too); default: the whole account' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Truncated to its bucket. Default: 24 hours or 30 days before `to`' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Truncated to its bucket; a later time than now is taken as now. Default: now' })),
  },
  { additionalProperties: false },
);

const config = { auth: 'usage:read' as const, budget: 'exempt' as const };

/** The account's budget as the limiter sees it, and its history; reading either spends none (config.budget). */
export const usageRoutes: FastifyPluginAsyncTypebox<{ limiter: RateLimiter; history: UsageHistoryService }> = async (app, { limiter, history }) => {
  app.get('/usage', {
    config,
    schema: {
      tags: ['Account'], operationId: 'getUsage', summary: 'Rate-limit budget and use of the account',
      description: 'Reading the usage spends nothing from the budget it reports.',
      response: { 200: Type.Ref('Usage') },
    },
  }, async (request) => {
    const membership = requireOrganization(request);
    const { org } = membership;
    // An API key with a budget of its own sees, per window, the tighter of its own and the organization's
    // (a free team's being its owner's free-teams budget: access/usage/budget-key.ts).
    return presentUsage(org, await limiter.peek(budgetKeyOf(membership), limitsFor(org), requireAuth(request).keyBudget));
  });

  app.get('/usage/history', {
    config,
    schema: {
      tags: ['Account'], operationId: 'getUsageHistory', summary: 'Requests per hour or day, by outcome',
      description: 'The requests of the account (every key and session) or of one API key, per UTC hour (the last 7 days) or UTC day '
        + '(the last 90 days), counted by outcome: admitted, refused by a rate limit, refused with 401 or with 403. '
        + 'Every bucket from `from` to `to` is listed, oldest first, with zeros where nothing was counted. '
        + 'Requests served by the instance answering are included at once; those served by other instances arrive within '
        + '`USAGE_FLUSH_SECONDS` (10 s by default). A range reaching further back than that granularity is kept, ending before '
        + 'it starts, or starting in the future is 400 `validation_failed`; a `key_id` that is not one of the account\'s keys is 404.',
      querystring: UsageHistoryQuery,
      response: { 200: Type.Ref('UsageHistory'), ...problemResponses([400, 404]) },
    },
  }, async (request) => history.history(requireOrganization(request).org.id, request.query));
};
