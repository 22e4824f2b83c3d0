import { AppError, fieldError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import { mayInvite, ORG_ROLES, type OrgRole } from '../../kernel/access-terms/roles.js';
import { isoTime } from '../../kernel/clock.js';
import { createInvitationsRepository } from './invitations.repository.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import { recordAudit } from './audit-log.js';
import { handOverMemberKeys, revokeMemberKeys, type KeysOutcome } from './member-keys.js';
import { releaseMembership } from './membership-caps.js';
import { assertRole, membershipOf } from './caller-role.js';
import { createOrganizationsRepository, type MemberView, type OrganizationsRepository } from './organizations.repository.js';
import type { Actor, OrganizationsDeps } from './organization-deps.js';

const memberNotFound = () => new AppError('not_found', 'No member with this id in this organization.');

/** Withdraws, in the change's transaction, the open invitations a member sent that their new role could not send. */
function withdrawInvitationsBeyond(trx: Parameters<typeof createInvitationsRepository>[0], clock: OrganizationsDeps['clock'], orgId: string, userId: string, role: OrgRole | null): Promise<string[]> {
  return createInvitationsRepository(trx).revokeSentBy(orgId, userId, ORG_ROLES.filter((invited) => !mayInvite(role, invited)), isoTime(clock.now()));
}

/**
 * The rules every change to a member obeys: owners alone make owners and change owners; an
 * organization always keeps an owner; the user of a personal organization stays its owner.
 * Checked inside the transaction that holds the organization's row lock (membershipOf with a
 * dialect), so two changes at once cannot both pass the last-owner count.
 */
async function assertMayChange(orgs: OrganizationsRepository, orgId: string, target: { userId: string; role: OrgRole }, next: OrgRole | null): Promise<void> {
  if (target.role === 'owner' && next !== 'owner') {
    if (await orgs.isPersonalOrgOf(orgId, target.userId)) {
      throw new AppError('conflict', 'The user of a personal organization stays its owner; it goes only with the account.');
    }
    if ((await orgs.countOwners(orgId)) <= 1) {
      throw new AppError('last_owner', 'An organization keeps at least one owner: make another member owner first.');
    }
  }
}

export function createMembersService(deps: OrganizationsDeps) {
  const { db, dialect, clock, cache } = deps;

  /** Instances drop the keys they cached: revoked ones are refused, handed-over ones re-read. */
  async function announceKeys(kind: 'revoke' | 'keep', keys: KeysOutcome): Promise<void> {
    if (keys.hashes.length === 0) return;
    await deps.bus.publish({ type: kind === 'revoke' ? 'api-keys-revoked' : 'api-keys-changed', hashes: keys.hashes });
  }

  return {
    async list(userId: string, orgId: string, limit: number, cursor?: string): Promise<{ rows: MemberView[]; nextCursor: string | null }> {
      await membershipOf(db, orgId, userId);
      const rows = await createOrganizationsRepository(db).listMembers(orgId, limit + 1, cursor);
      return toPage(rows.map((r) => ({ ...r, id: r.user_id })), limit);
    },

    async changeRole(actor: Actor, orgId: string, userId: string, role: OrgRole): Promise<MemberView> {
      const { member, recorded } = await db.transaction().execute(async (trx) => {
        const { role: actorRole } = await membershipOf(trx, orgId, actor.userId, dialect);
        assertRole(actorRole, 'admin', 'Changing a member\'s role');
        const orgs = createOrganizationsRepository(trx);
        const current = await orgs.member(orgId, userId);
        if (!current) throw memberNotFound();
        if (current.role === role) return { member: current, recorded: undefined };
        // What no one may do answers first (409), then what only an owner may do (403).
        await assertMayChange(orgs, orgId, { userId, role: current.role }, role);
        if (role === 'owner' || current.role === 'owner') assertRole(actorRole, 'owner', 'Making an owner or changing an owner\'s role');
        await orgs.setRole(orgId, userId, role);
        const withdrawn = await withdrawInvitationsBeyond(trx, clock, orgId, userId, role);
        await recordAudit(trx, clock, {
          orgId, actor, client: actor.client, action: 'member.role_changed', targetId: userId,
          detail: { from: current.role, to: role, ...(withdrawn.length > 0 ? { invitations_withdrawn: withdrawn } : {}) },
        });
        const recorded = await recordEvent(trx, clock, { orgId, type: 'organization.member.updated', data: { organization_id: orgId, user_id: userId, role } });
        return { member: { ...current, role }, recorded };
      });
      if (recorded) {
        deps.onEvent(recorded);
        await cache.membershipChanged(orgId, userId);
      }
      return member;
    },

    /**
     * Removes a member, or lets the caller leave (userId = the caller). Admins remove others;
     * removing an owner needs an owner. The member's API keys in this organization are revoked,
     * or with `keys: 'keep'` handed to the remover. The membership counts no more against the
     * member's organizations.
     */
    async remove(actor: Actor, orgId: string, userId: string, keys: 'revoke' | 'keep'): Promise<void> {
      const leaving = userId === actor.userId;
      if (leaving && keys === 'keep') {
        throw fieldError('query:/api_keys', 'not_when_leaving', 'api_keys=keep hands the keys to the remover; leaving, there is no one to hand them to.');
      }
      const { outcome, recorded } = await db.transaction().execute(async (trx) => {
        const { role: actorRole } = await membershipOf(trx, orgId, actor.userId, dialect);
        if (!leaving) assertRole(actorRole, 'admin', 'Removing a member');
        const orgs = createOrganizationsRepository(trx);
        const current = await orgs.member(orgId, userId);
        if (!current) throw memberNotFound();
        await assertMayChange(orgs, orgId, { userId, role: current.role }, null);
        if (!leaving && current.role === 'owner') assertRole(actorRole, 'owner', 'Removing an owner');
        const outcome = keys === 'keep' ? await handOverMemberKeys(trx, orgId, userId, actor.userId) : await revokeMemberKeys(trx, clock, orgId, userId);
        await orgs.removeMember(orgId, userId);
        await releaseMembership(trx, userId);
        const withdrawn = await withdrawInvitationsBeyond(trx, clock, orgId, userId, null);
        await recordAudit(trx, clock, {
          orgId, actor, client: actor.client, action: leaving ? 'member.left' : 'member.removed', targetId: userId,
          detail: { role: current.role, api_keys: keys === 'keep' ? 'kept' : 'revoked', api_key_ids: outcome.ids, ...(withdrawn.length > 0 ? { invitations_withdrawn: withdrawn } : {}) },
        });
        const recorded: RecordedEvent[] = [await recordEvent(trx, clock, { orgId, type: 'organization.member.removed', data: { organization_id: orgId, user_id: userId, role: current.role } })];
        if (keys === 'revoke' && outcome.ids.length > 0) recorded.push(await recordEvent(trx, clock, { orgId, type: 'api_key.revoked', data: { ids: outcome.ids } }));
        return { outcome, recorded };
      });
      deps.onEvent(...recorded);
      await cache.membershipChanged(orgId, userId);
      await announceKeys(keys, outcome);
    },
  };
}
