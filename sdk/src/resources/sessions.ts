/** Where the account is signed in. */
import type { Call, RequestOptions } from '../core.js';
import type { QueryParams } from '../operations.js';

export function sessionsResource(call: Call) {
  return {
    list: (query?: QueryParams<'listSessions'>, options?: RequestOptions) => call('listSessions', { query }, options),
    /** Its access tokens stop working at once, on every instance. */
    revoke: (id: string, options?: RequestOptions) => call('revokeSession', { params: { id } }, options),
  };
}
