import { limitsFor, isTier, streamCapFor } from '../../kernel/access-terms/tiers.js';
import { hasPassword, type UserRow } from './users.repository.js';
import type { Membership } from '../../kernel/access-terms/credentials.js';

/** Rows to wire shapes. The password hash never leaves this module's repository. */
export function presentUser(row: UserRow) {
  return { id: row.id, email: row.email, name: row.name, created_at: row.created_at };
}

/** The account, with the tier and budget of the organization the request acted for. */
export function presentMe(row: UserRow, { org, role }: Membership) {
  return {
    id: row.id, email: row.is_anonymous === 1 ? null : row.email, is_anonymous: row.is_anonymous === 1, name: row.name, created_at: row.created_at,
    updated_at: row.updated_at,
    tier: isTier(org.tier) ? org.tier : 'free',
    role: row.role === 'admin' ? ('admin' as const) : ('user' as const),
    email_verified: row.email_verified === 1,
    has_password: hasPassword(row),
    limits: { ...limitsFor(org), streams: streamCapFor(org) },
    personal_organization_id: row.personal_org_id,
    organization: { id: org.id, role },
  };
}
