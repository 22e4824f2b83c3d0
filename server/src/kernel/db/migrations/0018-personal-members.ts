import type { Kysely } from 'kysely';
import { newId } from '../../ids.js';

const DISABLED_REASON = 'Disabled by the upgrade: made by another user in a personal organization, which takes no members and whose account events are its person\'s own.';

/**
 * Issue 31, defect 7: a personal organization takes no members now, and its account events
 * (`user.*`, `session.*`, `security.*`) are its person's own. Members who joined one before kept
 * their membership, their API keys there, and the webhook endpoints they made there, which still
 * received the person's account events. This ends each such membership as removing a member does
 * (members.service.ts): the member's live keys there are revoked and given back to the
 * organization's key cap, and the membership to the member's organization cap (membership-caps.ts).
 * The endpoints whose `webhook.created` record names another user than the person are disabled,
 * not deleted: the person sees them, their deliveries and the reason, and may delete them or
 * enable them again. Each change is in the organization's audit log, by no one (the upgrade).
 * An endpoint without such a record predates the audit log (0014), when it could only be the
 * account's own. Plain selects and updates, the same on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  const audit = (orgId: string, action: string, targetId: string, detail: Record<string, unknown>) =>
    db.insertInto('audit_events').values({
      id: newId('auditEvent'), org_id: orgId, actor_user_id: null, actor_key_id: null, action, target_id: targetId,
      ip: null, user_agent: null, detail: JSON.stringify(detail), created_at: now,
    }).execute();

  const strays: { org_id: string; user_id: string; role: string }[] = await db.selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['m.org_id', 'm.user_id', 'm.role'])
    .where('o.personal', '=', 1)
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('users as u').select('u.id').whereRef('u.id', '=', 'm.user_id').whereRef('u.personal_org_id', '=', 'm.org_id'))))
    .orderBy('m.org_id').orderBy('m.user_id')
    .execute();
  for (const { org_id: orgId, user_id: userId, role } of strays) {
    const keys: { id: string }[] = await db.selectFrom('api_keys').select('id')
      .where('org_id', '=', orgId).where('user_id', '=', userId).where('revoked_at', 'is', null).orderBy('id').execute();
    const keyIds = keys.map((k) => k.id);
    if (keyIds.length > 0) {
      await db.updateTable('api_keys').set({ revoked_at: now }).where('id', 'in', keyIds).execute();
      await db.updateTable('organizations').set((eb) => ({ api_key_count: eb('api_key_count', '-', keyIds.length) })).where('id', '=', orgId).execute();
    }
    await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    await db.updateTable('users').set((eb) => ({ organization_count: eb('organization_count', '-', 1) })).where('id', '=', userId).execute();
    await audit(orgId, 'member.removed', userId, { role, api_keys: 'revoked', api_key_ids: keyIds, reason: 'personal_organization' });
  }

  // An actor that is not the person, or none left (an account deleted since), was someone else.
  const endpoints: { id: string; org_id: string }[] = await db.selectFrom('webhook_endpoints as w')
    .innerJoin('organizations as o', 'o.id', 'w.org_id')
    .select(['w.id', 'w.org_id'])
    .where('o.personal', '=', 1).where('w.enabled', '=', 1)
    .where(({ exists, not, selectFrom }) => exists(
      selectFrom('audit_events as a').select('a.id')
        .whereRef('a.org_id', '=', 'w.org_id').whereRef('a.target_id', '=', 'w.id').where('a.action', '=', 'webhook.created')
        .where(not(exists(selectFrom('users as u').select('u.id').whereRef('u.id', '=', 'a.actor_user_id').whereRef('u.personal_org_id', '=', 'w.org_id'))))))
    .orderBy('w.id')
    .execute();
  for (const { id, org_id: orgId } of endpoints) {
    await db.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: DISABLED_REASON, updated_at: now }).where('id', '=', id).execute();
    await audit(orgId, 'webhook.updated', id, { fields: ['enabled'], reason: 'personal_organization' });
  }
}

/** Nothing to undo: the memberships, keys and endpoints it ended were not to be. */
export async function down(): Promise<void> {}
