/** The account's rate-limit budget, and how it was used. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams } from '../operations.js';

export function usageResource(call: Call) {
  return {
    get: (options?: RequestOptions) => call('getUsage', {}, options),
    /**
     * Requests per hour (7 days back) or per day (90 days back) by outcome (ok, rate_limited,
     * unauthorized, forbidden), for the account or one key (`key_id`); every bucket of the range,
     * oldest first. Other instances' counts may lag by the server's USAGE_FLUSH_SECONDS.
     */
    history: (query?: QueryParams<'getUsageHistory'>, options?: RequestOptions) => call('getUsageHistory', { query }, options),
  };
}
