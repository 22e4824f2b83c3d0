import { randomBytes } from 'node:crypto';
import { type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../src/kernel/ids.js';
import { sha256Hex } from '../src/kernel/opaque-tokens.js';
import { migrateToLatest, type DatabaseHandle } from '../src/kernel/db/database.js';
import { scratchDatabase } from './scratch-database.js';
import { MIGRATIONS } from '../src/kernel/db/migrations/index.js';

/**
 * Issue 31, defect 7: a personal organization takes no members now, but members who joined one
 * before kept their membership, their keys, and the webhook endpoints they made there, which
 * received the person's account events (`user.*`, `session.*`, `security.*`). Migration 0018
 * ends those memberships as removing a member does (keys revoked and given back to the key cap,
 * the organization given back to the member's cap) and disables the endpoints another user made.
 */
const url = process.env.DATABASE_URL ?? 'sqlite:';
const dialect = url.startsWith('postgres') ? 'postgres' : 'sqlite';
const MIGRATION = '0018-personal-members';
/** The one before it, whichever that is once other branches' migrations are merged. */
const PREVIOUS = Object.keys(MIGRATIONS).sort().at(Object.keys(MIGRATIONS).sort().indexOf(MIGRATION) - 1)!;

describe(`migration ${MIGRATION} leaves each personal organization to its own person (${dialect})`, () => {
  const scratch = scratchDatabase('0018');
  const { schema, open } = scratch;
  let handle: DatabaseHandle;

  it('removes strangers\' memberships, revokes their keys there, gives back both caps, and disables the endpoints they made', async () => {
    handle = await open();
    expect(await migrateToLatest(handle, PREVIOUS)).toContain(PREVIOUS);
    const db = handle.db as unknown as Kysely<any>;

    // --- What the release allowed: Mia joined Pat's personal organization ---------------------
    const t0 = Date.parse('2026-11-01T09:00:00.000Z');
    const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
    const [pat, mia, quinn] = [newId('user', t0), newId('user', t0 + 1), newId('user', t0 + 2)];
    const [patOrg, miaOrg, quinnOrg, team] = [newId('organization', t0), newId('organization', t0 + 1), newId('organization', t0 + 2), newId('organization', t0 + 3)];
    const org = (id: string, personal: number, apiKeys: number, webhooks: number) => ({
      id, name: id, personal, tier: 'free', limit_per_minute: null, limit_per_day: null, limit_streams: null,
      agent_count: 0, chat_count: 0, api_key_count: apiKeys, webhook_count: webhooks, created_at: at(0), updated_at: at(0),
    });
    await db.insertInto('organizations').values([org(patOrg, 1, 2, 3), org(miaOrg, 1, 0, 0), org(quinnOrg, 1, 0, 0), org(team, 0, 1, 1)]).execute();
    const user = (id: string, name: string, personalOrg: string, organizations: number) => ({
      id, email: `${name}@example.com`, email_normalized: `${name}@example.com`, name, password_hash: `$argon2id$${name}`, role: 'user',
      email_verified: 1, disabled: 0, created_at: at(0), updated_at: at(0), personal_org_id: personalOrg, organization_count: organizations, deletion_due_at: null,
    });
    // Pat: personal + team; Mia: personal + Pat's personal + team; Quinn: personal only.
    await db.insertInto('users').values([user(pat, 'pat', patOrg, 2), user(mia, 'mia', miaOrg, 3), user(quinn, 'quinn', quinnOrg, 1)]).execute();
    const member = (orgId: string, userId: string, role: string) => ({ org_id: orgId, user_id: userId, role, created_at: at(1) });
    await db.insertInto('memberships').values([
      member(patOrg, pat, 'owner'), member(patOrg, mia, 'admin'), member(miaOrg, mia, 'owner'), member(quinnOrg, quinn, 'owner'),
      member(team, pat, 'owner'), member(team, mia, 'member'),
    ]).execute();

    const key = (orgId: string, userId: string, name: string, revokedAt: string | null = null) => ({
      id: newId('apiKey'), org_id: orgId, user_id: userId, name, secret_hash: sha256Hex(name), prefix: 'gth_abcd', last_four: 'wxyz',
      scopes: 'agents:read webhooks:write', created_at: at(2), expires_at: null, last_used_at: null, revoked_at: revokedAt,
      rate_limit_per_minute: null, rate_limit_per_day: null, remaining: null, refill_amount: null, refill_interval: null, refilled_at: null,
      previous_secret_hash: null, previous_expires_at: null,
    });
    const keys = { miaInPat: key(patOrg, mia, 'mia-in-pat'), miaOld: key(patOrg, mia, 'mia-old', at(3)), patOwn: key(patOrg, pat, 'pat-own'), miaInTeam: key(team, mia, 'mia-in-team') };
    await db.insertInto('api_keys').values(Object.values(keys)).execute();

    const endpoint = (orgId: string, events: string) => ({
      id: newId('webhook'), org_id: orgId, url: 'https://hooks.example.com/in', description: null, events, secret: 'sealed', enabled: 1, disabled_reason: null,
      created_at: at(4), updated_at: at(4), previous_secret: null, previous_secret_expires_at: null,
    });
    const hooks = { byMia: endpoint(patOrg, 'user.* session.*'), byPat: endpoint(patOrg, '*'), beforeAudit: endpoint(patOrg, 'agent.*'), miaInTeam: endpoint(team, '*') };
    await db.insertInto('webhook_endpoints').values(Object.values(hooks)).execute();
    const created = (orgId: string, actor: string, target: string) => ({
      id: newId('auditEvent'), org_id: orgId, actor_user_id: actor, actor_key_id: null, action: 'webhook.created', target_id: target,
      ip: null, user_agent: null, detail: '{}', created_at: at(4),
    });
    // The endpoint made before the audit log (0014) has no record: it was the account's own.
    await db.insertInto('audit_events').values([created(patOrg, mia, hooks.byMia.id), created(patOrg, pat, hooks.byPat.id), created(team, mia, hooks.miaInTeam.id)]).execute();

    // --- The upgrade ---------------------------------------------------------------------------
    expect(await migrateToLatest(handle, MIGRATION)).toEqual([MIGRATION]);

    // Only Pat is left in Pat's personal organization; Mia's other memberships stay.
    const memberships = await db.selectFrom('memberships').select(['org_id', 'user_id', 'role']).execute();
    expect(memberships.filter((m) => m.org_id === patOrg)).toEqual([{ org_id: patOrg, user_id: pat, role: 'owner' }]);
    expect(memberships.filter((m) => m.user_id === mia).map((m) => m.org_id).sort()).toEqual([miaOrg, team].sort());
    expect(memberships).toHaveLength(5);

    // Mia's organization count is given back; nobody else's changes.
    const counts = Object.fromEntries((await db.selectFrom('users').select(['id', 'organization_count']).execute()).map((u) => [u.id, Number(u.organization_count)]));
    expect(counts).toEqual({ [pat]: 2, [mia]: 2, [quinn]: 1 });

    // Mia's live key in Pat's organization is revoked and its unit given back; the rest are as they were.
    const keyRows = Object.fromEntries((await db.selectFrom('api_keys').select(['name', 'revoked_at']).execute()).map((k) => [k.name, k.revoked_at]));
    expect(keyRows['mia-in-pat']).toEqual(expect.any(String));
    expect(keyRows['mia-old']).toBe(at(3));
    expect(keyRows['pat-own']).toBeNull();
    expect(keyRows['mia-in-team']).toBeNull();
    const orgCounts = Object.fromEntries((await db.selectFrom('organizations').select(['id', 'api_key_count', 'webhook_count']).execute()).map((o) => [o.id, [Number(o.api_key_count), Number(o.webhook_count)]]));
    expect(orgCounts[patOrg]).toEqual([1, 3]); // endpoints are disabled, not deleted: they still count
    expect(orgCounts[team]).toEqual([1, 1]);

    // The endpoint Mia made in Pat's personal organization no longer receives Pat's events; it is kept, disabled, for Pat to see.
    const hookRows = Object.fromEntries((await db.selectFrom('webhook_endpoints').select(['id', 'enabled', 'disabled_reason']).execute()).map((h) => [h.id, h]));
    expect(hookRows[hooks.byMia.id]).toMatchObject({ enabled: 0, disabled_reason: expect.stringContaining('personal organization') });
    for (const kept of [hooks.byPat, hooks.beforeAudit, hooks.miaInTeam]) expect(hookRows[kept.id]).toMatchObject({ enabled: 1, disabled_reason: null });

    // Pat's audit log says what happened, by no one (the upgrade).
    const audit = await db.selectFrom('audit_events').select(['action', 'actor_user_id', 'target_id', 'detail']).where('org_id', '=', patOrg).where('action', '!=', 'webhook.created').execute();
    expect(audit.map((a) => [a.action, a.actor_user_id, a.target_id]).sort()).toEqual([['member.removed', null, mia], ['webhook.updated', null, hooks.byMia.id]].sort());
    const removed = JSON.parse(audit.find((a) => a.action === 'member.removed')!.detail as string);
    expect(removed).toMatchObject({ role: 'admin', api_keys: 'revoked', api_key_ids: [keys.miaInPat.id] });
  });
});
