import type { Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import { LruCache } from '../../kernel/lru-cache.js';
import type { Eventually } from '../../kernel/eager.js';
import type { Membership } from '../../kernel/access-terms/credentials.js';
import type { OrgRole } from '../../kernel/access-terms/roles.js';
import { ACCOUNT_CACHE_TTL_MS } from '../../identity/index.js';
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository.js';

export type { Membership };

/**
 * The organization and the caller's role in it, needed on every authenticated request. Both are
 * read through LRUs, for at most ACCOUNT_CACHE_TTL_MS when no bus message arrives; a change is
 * announced on the bus (`organization-changed`, `membership-changed`), which drops the entry on
 * every instance at once: a removed member's token stops acting for the organization within the
 * bus's delivery time.
 */
export function createOrganizationCache(deps: { organizations: OrganizationsRepository; bus: Bus; clock: Clock }) {
  const { organizations, bus, clock } = deps;
  const orgs = new LruCache<string, { row: OrganizationRow | undefined; teamOwner: string | null; at: number }>(100_000);
  // Keyed "orgId userId"; null: known not to be a member.
  const roles = new LruCache<string, { role: OrgRole | null; at: number }>(200_000);
  // Bumped by every change: a read that was in flight meanwhile may hold the old rows, so it is not cached.
  let changes = 0;
  bus.subscribe((m) => {
    if (m.type === 'organization-changed') orgs.delete(m.orgId);
    else if (m.type === 'membership-changed') roles.delete(`${m.orgId} ${m.userId}`);
    else return;
    changes++;
  });
  bus.onReconnect(() => {
    changes++;
    orgs.clear();
    roles.clear();
  });
  /** null: not a member (or no such organization); undefined: not cached. One clock reading for both entries. */
  function peek(orgId: string, userId: string): Membership | null | undefined {
    const role = roles.get(`${orgId} ${userId}`);
    if (role === undefined) return undefined;
    const oldest = clock.now() - ACCOUNT_CACHE_TTL_MS;
    if (role.at <= oldest) return undefined;
    if (role.role === null) return null;
    const org = orgs.get(orgId);
    if (org === undefined || org.at <= oldest) return undefined;
    return org.row ? { org: org.row, role: role.role, teamOwner: org.teamOwner } : null;
  }

  /** The organization and the caller's role in it (null: not a member, or no such organization): at once when cached, else after its reads. */
  function get(orgId: string, userId: string): Eventually<Membership | null> {
    const cached = peek(orgId, userId);
    return cached !== undefined ? cached : read(orgId, userId);
  }

  async function read(orgId: string, userId: string): Promise<Membership | null> {
    const before = changes;
    const [row, role, teamOwner] = await Promise.all([organizations.findById(orgId), organizations.roleOf(orgId, userId), organizations.teamOwnerOf(orgId)]);
    if (changes === before) {
      const at = clock.now();
      // Frozen: shared by every request of the organization.
      orgs.set(orgId, { row: row && Object.freeze(row), teamOwner, at });
      roles.set(`${orgId} ${userId}`, { role: role ?? null, at });
    }
    return row && role ? { org: row, role, teamOwner } : null;
  }

  return {
    get,
    /** Call after writing the organization: every instance re-reads it on next use. */
    changed: (orgId: string) => bus.publish({ type: 'organization-changed', orgId }),
    /** Call after a member joined, changed role or left. */
    membershipChanged: (orgId: string, userId: string) => bus.publish({ type: 'membership-changed', orgId, userId }),
  };
}
export type OrganizationCache = ReturnType<typeof createOrganizationCache>;
