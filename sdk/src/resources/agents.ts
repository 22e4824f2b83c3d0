/** Platform agents (scopes agents:read / agents:write). */
import type { Call, CreateOptions, RequestOptions } from '../core.js';
import type { QueryParams, RequestBody } from '../operations.js';

export function agentsResource(call: Call) {
  return {
    create: (body: RequestBody<'createAgent'>, options?: CreateOptions) => call('createAgent', { body }, options),
    list: (query?: QueryParams<'listAgents'>, options?: RequestOptions) => call('listAgents', { query }, options),
    get: (id: string, options?: RequestOptions) => call('getAgent', { params: { id } }, options),
    update: (id: string, body: RequestBody<'updateAgent'>, options?: RequestOptions) => call('updateAgent', { params: { id }, body }, options),
    delete: (id: string, options?: RequestOptions) => call('deleteAgent', { params: { id } }, options),
  };
}
