import { isoTime } from '../../kernel/clock.js';
import type { Scope } from '../../kernel/access-terms/scopes.js';
import type { ApiKeyRow } from './api-keys.repository.js';
import { usesLeft } from './key-uses.js';

/** The wire shape of a key as of `now`; never its secret or hash. */
export function presentApiKey(row: ApiKeyRow, now: number) {
  const previousWorks = row.previous_secret_hash !== null && row.previous_expires_at !== null && row.previous_expires_at > isoTime(now);
  return {
    id: row.id, name: row.name, prefix: row.prefix, last_four: row.last_four,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    created_at: row.created_at, expires_at: row.expires_at, last_used_at: row.last_used_at,
    rate_limit: row.rate_limit_per_minute === null && row.rate_limit_per_day === null ? null : { per_minute: row.rate_limit_per_minute, per_day: row.rate_limit_per_day },
    remaining: usesLeft(row, now),
    refill: row.refill_interval === null || row.refill_amount === null ? null : { amount: row.refill_amount, interval: row.refill_interval },
    previous_key_expires_at: previousWorks ? row.previous_expires_at : null,
  };
}
