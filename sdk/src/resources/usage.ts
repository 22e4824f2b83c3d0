/** The account's rate-limit budget. */
import type { Call, RequestOptions } from '../core.js';

export function usageResource(call: Call) {
  return {
    get: (options?: RequestOptions) => call('getUsage', {}, options),
  };
}
