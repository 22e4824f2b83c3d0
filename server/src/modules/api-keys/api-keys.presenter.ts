import type { ALL_SCOPES } from '../tokens/scopes.js';
import type { ApiKeyRow } from './api-keys.repository.js';

/** The wire shape of a key; never its secret or hash. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id, name: row.name, prefix: row.prefix, last_four: row.last_four,
    scopes: row.scopes.split(' ').filter(Boolean) as (typeof ALL_SCOPES)[number][],
    created_at: row.created_at, expires_at: row.expires_at, last_used_at: row.last_used_at,
  };
}
