/** Long-lived credentials for programs; managed with a session only. */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function apiKeysResource(call: Call) {
  return {
    /** The answer's `key` is the secret, shown this once. */
    create: (body: RequestBody<'createApiKey'>, options?: CreateOptions) => call('createApiKey', { body }, options),
    list: (query?: QueryParams<'listApiKeys'>, options?: RequestOptions) => call('listApiKeys', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getApiKey', { params: { id } }, options),
    revoke: (id: string, options?: RequestOptions) => call('revokeApiKey', { params: { id } }, options),
  };
}
