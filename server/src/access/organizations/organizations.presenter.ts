import type { Selectable } from 'kysely';
import type { OrgRole } from '../../kernel/access-terms/roles.js';
import { isTier, limitsFor, streamCapFor } from '../../kernel/access-terms/tiers.js';
import type { InvitationsTable } from '../../kernel/db/schema.js';
import type { OrganizationRow } from './organizations.repository.js';

export type InvitationRow = Selectable<InvitationsTable>;
export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** An organization as its member sees it: their own role in it, and the budget it shares. */
export function presentOrganization(org: OrganizationRow, role: OrgRole) {
  const { per_minute, per_day } = limitsFor(org);
  return {
    id: org.id, name: org.name, personal: org.personal === 1, role, tier: isTier(org.tier) ? org.tier : 'free',
    limits: { per_minute, per_day, streams: streamCapFor(org) },
    created_at: org.created_at, updated_at: org.updated_at,
  };
}

export function invitationStatus(row: InvitationRow, now: number): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return Date.parse(row.expires_at) <= now ? 'expired' : 'pending';
}

/** Never the token: it exists only in the mail. */
export function presentInvitation(row: InvitationRow, now: number) {
  return {
    id: row.id, organization_id: row.org_id, email: row.email, role: row.role, invited_by: row.invited_by,
    status: invitationStatus(row, now), created_at: row.created_at, expires_at: row.expires_at,
  };
}
