/** Long-lived credentials for programs; managed with a session only. */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function apiKeysResource(call: Call) {
  return {
    /** The answer's `key` is the secret, shown this once. */
    create: (body: RequestBody<'createApiKey'>, options?: CreateOptions) => call('createApiKey', { body }, options),
    list: (query?: QueryParams<'listApiKeys'>, options?: RequestOptions) => call('listApiKeys', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getApiKey', { params: { id } }, options),
    /** Rename, narrow the scopes, change the expiry or the key's own limits and uses. */
    update: (id: string, body: RequestBody<'updateApiKey'>, options?: RequestOptions) => call('updateApiKey', { params: { id }, body }, options),
    /**
     * A new secret (the answer's `key`, shown this once); the old one keeps working for
     * `grace_seconds` (0 to 7 days; default 0: refused at once).
     */
    roll: (id: string, body: RequestBody<'rollApiKey'> = {}, options?: CreateOptions) => call('rollApiKey', { params: { id }, body }, options),
    revoke: (id: string, options?: RequestOptions) => call('revokeApiKey', { params: { id } }, options),
  };
}
