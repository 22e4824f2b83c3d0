import { limitsFor, isTier, streamCapFor } from '../../core/tiers.js';
import type { UserRow } from './users.repository.js';

/** Rows to wire shapes. The password hash never leaves this module's repository. */
export function presentUser(row: UserRow) {
  return { id: row.id, email: row.email, name: row.name, created_at: row.created_at };
}

export function presentMe(row: UserRow) {
  return {
    id: row.id, email: row.email, name: row.name, created_at: row.created_at,
    updated_at: row.updated_at,
    tier: isTier(row.tier) ? row.tier : 'free',
    role: row.role === 'admin' ? ('admin' as const) : ('user' as const),
    email_verified: row.email_verified === 1,
    limits: { ...limitsFor(row), streams: streamCapFor(row) },
  };
}
