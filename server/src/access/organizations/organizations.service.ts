import type { Actor, OrganizationsDeps } from './organization-deps.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { cleanName } from '../../kernel/names.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime } from '../../kernel/clock.js';
import { listAuditEvents, recordAudit } from './audit-log.js';
import { createInvitationsService } from './invitations.service.js';
import { createMembersService } from './members.service.js';
import { ORGANIZATIONS_PER_USER, releaseMembershipsOf, takeMembership } from './membership-caps.js';
import { assertRole, membershipOf } from './caller-role.js';
import { createOrganizationsRepository, newOrganizationRow, type OrganizationRow } from './organizations.repository.js';
import type { OrgRole } from '../../kernel/access-terms/roles.js';

export type { Actor, OrganizationsDeps };

/** Organizations, their members, invitations and audit log (issue 21, "Teams"). */
export function createOrganizationsService(deps: OrganizationsDeps) {
  const { db, dialect, clock, cache } = deps;
  const maxOrganizations = deps.maxOrganizations ?? ORGANIZATIONS_PER_USER;
  const repo = createOrganizationsRepository(db);

  return {
    members: createMembersService(deps),
    invitations: createInvitationsService({ ...deps, maxOrganizations }),

    /** A new organization, its creator the owner. Counts against the creator's memberships. */
    async create(actor: Actor, name: string): Promise<{ org: OrganizationRow; role: OrgRole }> {
      const org = newOrganizationRow({ id: newId('organization'), name: cleanName(name), personal: false, nowIso: isoTime(clock.now()) });
      await db.transaction().execute(async (trx) => {
        await takeMembership(trx, actor.userId, maxOrganizations);
        await createOrganizationsRepository(trx).insertWithOwner(org, actor.userId);
        await recordAudit(trx, clock, { orgId: org.id, actor, client: actor.client, action: 'organization.created', targetId: org.id, detail: { name: org.name } });
      });
      // An instance may remember "not a member" from a request that named this id before it existed.
      await cache.membershipChanged(org.id, actor.userId);
      return { org, role: 'owner' };
    },

    async list(userId: string, limit: number, cursor?: string) {
      return toPage(await repo.listForUser(userId, limit + 1, cursor), limit);
    },

    get: (userId: string, orgId: string) => membershipOf(db, orgId, userId),

    async rename(actor: Actor, orgId: string, name: string): Promise<{ org: OrganizationRow; role: OrgRole }> {
      const clean = cleanName(name);
      const result = await db.transaction().execute(async (trx) => {
        const { org, role } = await membershipOf(trx, orgId, actor.userId, dialect);
        assertRole(role, 'admin', 'Renaming the organization');
        const renamed = await createOrganizationsRepository(trx).rename(orgId, clean, isoTime(clock.now()));
        await recordAudit(trx, clock, { orgId, actor, client: actor.client, action: 'organization.updated', targetId: orgId, detail: { name: { from: org.name, to: clean } } });
        return { org: renamed, role };
      });
      await cache.changed(orgId);
      return result;
    },

    /**
     * Deletes the organization and all it owns (ON DELETE CASCADE: memberships, invitations, API
     * keys, agents, chats, webhooks, events, usage, audit log). A personal organization goes only
     * with its user. The keys' hashes are read before the rows go, so every instance can be told
     * to refuse them at once; every member gets their membership back.
     */
    async delete(actor: Actor, orgId: string): Promise<void> {
      const { hashes, memberIds } = await db.transaction().execute(async (trx) => {
        const { org, role } = await membershipOf(trx, orgId, actor.userId, dialect);
        assertRole(role, 'owner', 'Deleting the organization');
        if (org.personal === 1) throw new AppError('conflict', 'A personal organization is deleted only with its account.');
        const orgs = createOrganizationsRepository(trx);
        const keys = await trx.selectFrom('api_keys').select(['secret_hash', 'previous_secret_hash']).where('org_id', '=', orgId).where('revoked_at', 'is', null).execute();
        const members = await orgs.memberIds(orgId);
        await releaseMembershipsOf(trx, orgId);
        await orgs.delete(orgId);
        return { hashes: keys.flatMap((k) => (k.previous_secret_hash ? [k.secret_hash, k.previous_secret_hash] : [k.secret_hash])), memberIds: members };
      });
      if (hashes.length > 0) await deps.bus.publish({ type: 'api-keys-revoked', hashes });
      await cache.changed(orgId);
      for (const userId of memberIds) await cache.membershipChanged(orgId, userId);
    },

    async auditLog(userId: string, orgId: string, limit: number, cursor?: string) {
      const { role } = await membershipOf(db, orgId, userId);
      assertRole(role, 'admin', 'Reading the audit log');
      return listAuditEvents(db, orgId, limit, cursor);
    },
  };
}
export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
