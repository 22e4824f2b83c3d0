import { AppError, tooManyAttempts } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { toPage } from '../../kernel/pagination.js';
import { mayInvite, type OrgRole } from '../../kernel/access-terms/roles.js';
import { isoTime } from '../../kernel/clock.js';
import { normalizeEmail } from '../../identity/index.js';
import { recordEvent } from '../../kernel/events/event-outbox.js';
import { newOpaqueToken, sha256Hex } from '../../kernel/opaque-tokens.js';
import { recordAudit } from './audit-log.js';
import { createInvitationsRepository } from './invitations.repository.js';
import { takeMembership } from './membership-caps.js';
import { assertRole, membershipOf } from './caller-role.js';
import { invitationStatus, type InvitationRow } from './organizations.presenter.js';
import { createOrganizationsRepository, type OrganizationRow } from './organizations.repository.js';
import type { Actor, OrganizationsDeps } from './organization-deps.js';

export const INVITATION_TTL_MS = 7 * 86_400_000;
/** Invitation mails an organization may send per hour: an admin's session must not become a mail cannon. */
export const INVITATIONS_PER_HOUR = 50;
const TOKEN_PREFIX = 'gthi_';

const invalid = (detail: string) => new AppError('invalid_invitation', detail);
/**
 * A personal organization is its person's account: account events (their address, their
 * sessions) go to it, and its budget is theirs. Members there would read both, so it takes none.
 */
const personalTakesNoMembers = () =>
  new AppError('conflict', 'A personal organization takes no members: create a team (POST /v1/organizations) and invite them there.');

/** Why a link does not work, saying nothing about the organization it was for. */
function assertOpen(row: InvitationRow | undefined, now: number): asserts row is InvitationRow {
  if (!row) throw invalid('This invitation link is not valid: check that it was copied whole.');
  const status = invitationStatus(row, now);
  if (status === 'accepted') throw invalid('This invitation has already been used.');
  if (status === 'revoked') throw invalid('This invitation was withdrawn or replaced by a newer one.');
  if (status === 'expired') throw invalid('This invitation has expired; ask for a new one.');
}

/**
 * Invitations by email. The link's token (`gthi_` + 256 random bits) exists only in the mail;
 * the database keeps its SHA-256. It works once, for 7 days, for an account with the address it
 * was sent to, once that address is confirmed (else anyone who registers the address unconfirmed
 * would join).
 */
export function createInvitationsService(deps: OrganizationsDeps & { maxOrganizations: number }) {
  const { db, dialect, clock, cache } = deps;
  // Mail goes out after the answer: SMTP latency (or an outage) must not slow or fail the request.
  const sendLater = (send: () => Promise<void>) => void setImmediate(() => void send().catch(deps.onError));

  return {
    async invite(actor: Actor, orgId: string, input: { email: string; role: OrgRole }): Promise<InvitationRow> {
      const token = newOpaqueToken(TOKEN_PREFIX);
      const now = clock.now();
      const { row, org, inviter } = await db.transaction().execute(async (trx) => {
        const { org, role } = await membershipOf(trx, orgId, actor.userId, dialect);
        assertRole(role, 'admin', 'Inviting members');
        if (org.personal) throw personalTakesNoMembers();
        if (!mayInvite(role, input.role)) assertRole(role, 'owner', 'Inviting an owner');
        const invitations = createInvitationsRepository(trx);
        const emailNormalized = normalizeEmail(input.email);
        if (await invitations.isMemberByEmail(orgId, emailNormalized)) throw new AppError('conflict', 'An account with this address is a member already.');
        const decision = await deps.attempts.take([{ key: `invitations:${orgId}`, limit: INVITATIONS_PER_HOUR, windowSeconds: 3600 }]);
        if (!decision.allowed) throw tooManyAttempts('Too many invitations from this organization; try again later.', decision.retryAfterSeconds);
        const replaced = await invitations.revokeOpenTo(orgId, emailNormalized, isoTime(now));
        const row: InvitationRow = {
          id: newId('invitation'), org_id: orgId, email: input.email.trim(), email_normalized: emailNormalized, role: input.role,
          token_hash: sha256Hex(token), invited_by: actor.userId, created_at: isoTime(now), expires_at: isoTime(now + INVITATION_TTL_MS),
          accepted_at: null, accepted_by: null, revoked_at: null,
        };
        await invitations.insert(row);
        await recordAudit(trx, clock, { orgId, actor, client: actor.client, action: 'member.invited', targetId: row.id, detail: { email: row.email, role: row.role, replaced } });
        const inviter = await trx.selectFrom('users').select(['name', 'email']).where('id', '=', actor.userId).executeTakeFirstOrThrow();
        return { row, org, inviter };
      });
      const link = deps.mailLink('accept-invitation', token);
      sendLater(() => deps.mailer.send(deps.mails.invitationMail(row.email, inviter.name || inviter.email, org.name, row.role, link)));
      return row;
    },

    async listPending(userId: string, orgId: string, limit: number, cursor?: string) {
      const { role } = await membershipOf(db, orgId, userId);
      assertRole(role, 'admin', 'Listing invitations');
      return toPage(await createInvitationsRepository(db).listPending(orgId, isoTime(clock.now()), limit + 1, cursor), limit);
    },

    async revoke(actor: Actor, orgId: string, invitationId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const { role } = await membershipOf(trx, orgId, actor.userId, dialect);
        assertRole(role, 'admin', 'Withdrawing an invitation');
        if (!(await createInvitationsRepository(trx).revoke(orgId, invitationId, isoTime(clock.now())))) {
          throw new AppError('not_found', 'No open invitation with this id.');
        }
        await recordAudit(trx, clock, { orgId, actor, client: actor.client, action: 'invitation.revoked', targetId: invitationId });
      });
    },

    /**
     * What an open invitation link is for, before anyone signs in (the app and the dashboard's
     * page name the organization and who invites): the organization's name, the inviter's name,
     * the role and the expiry, nothing else (not the address it was sent to). A link that does not
     * work is 400 invalid_invitation, as accepting it would be.
     */
    async preview(token: string): Promise<{ organization_name: string; inviter_name: string | null; role: OrgRole; expires_at: string }> {
      const invitation = token.startsWith(TOKEN_PREFIX) ? await createInvitationsRepository(db).findByTokenHash(sha256Hex(token)) : undefined;
      assertOpen(invitation, clock.now());
      const org = await db.selectFrom('organizations').select('name').where('id', '=', invitation.org_id).executeTakeFirst();
      if (!org) throw invalid('This invitation link is not valid: check that it was copied whole.');
      const inviter = invitation.invited_by === null ? undefined : await db.selectFrom('users').select('name').where('id', '=', invitation.invited_by).executeTakeFirst();
      return { organization_name: org.name, inviter_name: inviter?.name || null, role: invitation.role as OrgRole, expires_at: invitation.expires_at };
    },

    /** The signed-in caller joins with the invitation's role; the Organization as they now see it. */
    async accept(actor: Actor, token: string): Promise<{ org: OrganizationRow; role: OrgRole }> {
      const now = clock.now();
      const nowIso = isoTime(now);
      const { org, role, recorded } = await db.transaction().execute(async (trx) => {
        const invitations = createInvitationsRepository(trx);
        const invitation = token.startsWith(TOKEN_PREFIX) ? await invitations.findByTokenHash(sha256Hex(token)) : undefined;
        assertOpen(invitation, now);
        const user = await trx.selectFrom('users').select(['email_normalized', 'email_verified']).where('id', '=', actor.userId).executeTakeFirstOrThrow();
        if (user.email_normalized !== invitation.email_normalized) {
          throw new AppError('invitation_email_mismatch', 'This invitation was sent to another email address: sign in with the account of that address.');
        }
        if (!user.email_verified) throw new AppError('email_not_verified', 'Confirm your email address first (the link in the verification mail), then accept the invitation.');
        const orgs = createOrganizationsRepository(trx);
        // The organization first, as every membership change takes it (a deletion waits, or wins).
        const org = await orgs.lockById(invitation.org_id, dialect);
        if (!org) throw invalid('This invitation link is not valid: check that it was copied whole.');
        if (org.personal) throw personalTakesNoMembers(); // an invitation from before they were refused
        // Its sender must still be able to send it: demoted, removed or deleted, they speak for no one.
        const inviterRole = invitation.invited_by === null ? undefined : await orgs.roleOf(org.id, invitation.invited_by);
        if (!mayInvite(inviterRole, invitation.role)) throw invalid('This invitation was withdrawn: whoever sent it can no longer invite to this role. Ask for a new one.');
        if (!(await invitations.claim(invitation.id, actor.userId, nowIso))) throw invalid('This invitation has already been used.');
        // Thrown after the claim, so the rollback leaves the invitation open for its address.
        if (await orgs.roleOf(org.id, actor.userId)) throw new AppError('conflict', 'You are a member of this organization already.');
        await takeMembership(trx, actor.userId, deps.maxOrganizations);
        await orgs.addMember(org.id, actor.userId, invitation.role, nowIso);
        await recordAudit(trx, clock, { orgId: org.id, actor, client: actor.client, action: 'member.joined', targetId: actor.userId, detail: { role: invitation.role, invitation_id: invitation.id } });
        const recorded = await recordEvent(trx, clock, { orgId: org.id, type: 'organization.member.added', data: { organization_id: org.id, user_id: actor.userId, role: invitation.role } });
        return { org, role: invitation.role, recorded };
      });
      deps.onEvent(recorded);
      await cache.membershipChanged(org.id, actor.userId);
      return { org, role };
    },
  };
}
