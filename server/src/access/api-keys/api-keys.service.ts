import type { Kysely } from 'kysely';
import { AppError, fieldError } from '../../kernel/errors.js';
import type { Database } from '../../kernel/db/schema.js';
import { toPage } from '../../kernel/pagination.js';
import type { Bus } from '../../kernel/bus.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import { sha256Hex } from '../../kernel/opaque-tokens.js';
import { assertMayHoldScopes, isServiceScope, KEY_SCOPES, USER_SCOPES } from '../../kernel/access-terms/scopes.js';
import { nextPeriodStart, periodStarts, usesLeft, type RefillInterval } from './key-uses.js';
import { cleanName } from '../../kernel/names.js';
import { generateApiKey } from './api-key-format.js';
import { lockOrganization, releaseCapacity, takeCapacity } from '../organizations/organization-caps.js';
import type { DialectName } from '../../kernel/db/database.js';
import { recordEvent, type RecordedEvent } from '../../kernel/events/event-outbox.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { presentApiKey } from './api-keys.presenter.js';
import { createApiKeysRepository, type ApiKeyRow, type ApiKeysRepository } from './api-keys.repository.js';
import { atLeast, insufficientRole, ROLE_SCOPES, roleForScope, type OrgRole } from '../../kernel/access-terms/roles.js';
import type { ClientInfo } from '../../kernel/client-info.js';
import { recordAudit } from '../organizations/audit-log.js';

/**
 * Who manages a key: the signed-in user (and their role on the service, which service keys need),
 * in the organization the request acts for, with their role there. Members create keys (with at
 * most their role's scopes) and manage their own; admins manage every key of the organization.
 */
export interface KeyActor {
  userId: string;
  serviceRole: string;
  orgId: string;
  orgRole: OrgRole;
  /** Where from, for the organization's audit log. */
  client?: ClientInfo;
}

/** The organization's audit record of a change to one of its keys, in the change's transaction (no user: the operator's CLI). */
function auditKey(trx: Kysely<Database>, clock: Clock, actor: Pick<KeyActor, 'orgId' | 'client'> & { userId: string | null }, action: 'api_key.created' | 'api_key.updated' | 'api_key.rolled' | 'api_key.revoked', key: Pick<ApiKeyRow, 'id' | 'name'>, detail: Record<string, unknown> = {}) {
  return recordAudit(trx, clock, { orgId: actor.orgId, actor: { userId: actor.userId }, action, targetId: key.id, client: actor.client, detail: { name: key.name, ...detail } });
}


const MAX_LIFETIME_MS = 5 * 366 * 86_400_000;
/** The longest a rolled secret keeps working beside the new one. */
export const MAX_ROLL_GRACE_SECONDS = 7 * 86_400;

/** A key's own limits, as the create and update bodies carry them. */
export interface KeyLimitsInput {
  rate_limit?: { per_minute?: number | null; per_day?: number | null } | null;
  remaining?: number | null;
  refill?: { amount: number; interval: RefillInterval } | null;
}

export interface CreateKeyInput extends KeyLimitsInput {
  name: string;
  scopes?: string[];
  expires_at?: string | null;
}

export interface UpdateKeyInput extends KeyLimitsInput {
  name?: string;
  scopes?: string[];
  expires_at?: string | null;
}

/** Uses spent, or why not: none left (and when a refill brings more, if it has one). */
export type UsesSpent = { remaining: number } | { exhausted: true; retryAfterSeconds: number | null };

export function createApiKeysService(deps: { repo: ApiKeysRepository; dialect: DialectName; bus: Bus; clock: Clock; maxActiveKeys: number; onEvent: OnEventsCommitted }) {
  const { repo, bus, clock } = deps;

  function expiryOf(expires_at: string | null): string | null {
    if (expires_at === null) return null;
    const at = Date.parse(expires_at);
    if (!(at > clock.now())) throw fieldError('/expires_at', 'in_past', 'expires_at must be in the future.');
    if (at - clock.now() > MAX_LIFETIME_MS) throw fieldError('/expires_at', 'too_far', 'expires_at must be within 5 years.');
    return isoTime(at);
  }

  /** The columns of a key's own limits from a body; fields absent from the body stay as `current` has them. */
  function limitColumns(input: KeyLimitsInput, current: Pick<ApiKeyRow, 'remaining' | 'refill_amount' | 'refill_interval' | 'rate_limit_per_minute' | 'rate_limit_per_day'> | undefined) {
    const change: Partial<ApiKeyRow> = {};
    if (input.rate_limit === null) {
      change.rate_limit_per_minute = null;
      change.rate_limit_per_day = null;
    } else if (input.rate_limit !== undefined) {
      // A window left out keeps what it had: `{per_minute: 10}` does not drop a daily limit.
      const { per_minute, per_day } = input.rate_limit;
      change.rate_limit_per_minute = per_minute !== undefined ? per_minute : current?.rate_limit_per_minute ?? null;
      change.rate_limit_per_day = per_day !== undefined ? per_day : current?.rate_limit_per_day ?? null;
    }
    if (input.remaining === undefined && input.refill === undefined) return change;
    const refill = input.refill !== undefined ? input.refill : current?.refill_interval ? { amount: current.refill_amount!, interval: current.refill_interval } : null;
    let remaining = input.remaining !== undefined ? input.remaining : current?.remaining ?? null;
    if (input.remaining === null && refill !== null) {
      throw fieldError('/refill', 'needs_remaining', 'A refill needs a number of uses: remaining cannot be null with a refill.');
    }
    // A refill given without a number of uses starts a full allowance.
    if (input.refill && input.remaining === undefined) remaining = input.refill.amount;
    change.remaining = remaining;
    change.refill_amount = refill?.amount ?? null;
    change.refill_interval = refill?.interval ?? null;
    // The period starts now: a refill set today does not also apply at the next use.
    change.refilled_at = isoTime(clock.now());
    return change;
  }

  /** Managing `key` needs `least` for one's own key, admin for another member's. */
  function assertMayManage(actor: KeyActor, key: ApiKeyRow, least: OrgRole): void {
    const needed: OrgRole = key.user_id === actor.userId ? least : 'admin';
    if (!atLeast(actor.orgRole, needed)) throw insufficientRole(needed, actor.orgRole);
  }

  /** Every instance drops what it cached under these hashes (revoked: refuses them too). */
  async function announce(type: 'api-keys-changed' | 'api-keys-revoked', hashes: (string | null)[]): Promise<void> {
    const present = hashes.filter((h): h is string => h !== null);
    if (present.length) await bus.publish({ type, hashes: present });
  }

  /**
   * Revokes the organization's live key `id`: the key counter given back, the audit record (by
   * `who`) and the api_key.revoked event in one transaction, then every instance drops it. `check`
   * may refuse once the key is read. Returns the key as it was; undefined when it was not live.
   */
  async function revokeIn(orgId: string, id: string, who: Pick<KeyActor, 'client'> & { userId: string | null }, check: (key: ApiKeyRow) => void): Promise<ApiKeyRow | undefined> {
    const done = await repo.db.transaction().execute(async (trx) => {
      await lockOrganization(trx, deps.dialect, orgId); // the organization first, as every cap change does
      const current = await createApiKeysRepository(trx).findInOrg(orgId, id);
      if (!current) return undefined;
      check(current);
      const hashes = await createApiKeysRepository(trx).revoke(orgId, id, isoTime(clock.now()));
      if (!hashes) return undefined;
      await releaseCapacity(trx, orgId, 'api_key_count');
      await auditKey(trx, clock, { orgId, ...who }, 'api_key.revoked', current);
      return { current, hashes, recorded: await recordEvent(trx, clock, { orgId, type: 'api_key.revoked', data: { id, ids: [id] } }) };
    });
    if (!done) return undefined;
    deps.onEvent(done.recorded);
    await announce('api-keys-revoked', done.hashes);
    return done.current;
  }

  return {
    async create(actor: KeyActor, input: CreateKeyInput): Promise<{ row: ApiKeyRow; key: string }> {
      if (!atLeast(actor.orgRole, 'member')) throw insufficientRole('member', actor.orgRole);
      const name = cleanName(input.name);
      // By default every platform scope the creator's role allows.
      const scopes = input.scopes ?? USER_SCOPES.filter((scope) => ROLE_SCOPES[actor.orgRole].has(scope));
      assertMayHoldScopes(scopes, actor.serviceRole);
      const beyondRole = scopes.find((scope) => !isServiceScope(scope) && !ROLE_SCOPES[actor.orgRole].has(scope));
      if (beyondRole !== undefined) throw insufficientRole(roleForScope(beyondRole), actor.orgRole);
      const key = generateApiKey();
      const row: ApiKeyRow = {
        id: newId('apiKey'),
        org_id: actor.orgId,
        user_id: actor.userId,
        name,
        secret_hash: sha256Hex(key),
        prefix: key.slice(0, 8),
        last_four: key.slice(-4),
        // Stored in the canonical order, so a key's scopes read the same however they were sent.
        scopes: KEY_SCOPES.filter((s) => scopes.includes(s)).join(' '),
        created_at: isoTime(clock.now()),
        expires_at: expiryOf(input.expires_at ?? null),
        last_used_at: null,
        revoked_at: null,
        rate_limit_per_minute: null, rate_limit_per_day: null, remaining: null, refill_amount: null, refill_interval: null, refilled_at: null,
        previous_secret_hash: null, previous_expires_at: null,
        ...limitColumns(input, undefined),
      };
      const recorded = await repo.db.transaction().execute(async (trx) => {
        await takeCapacity(trx, actor.orgId, 'api_key_count', deps.maxActiveKeys, 'active API keys; revoke one first');
        await createApiKeysRepository(trx).insert(row);
        await auditKey(trx, clock, actor, 'api_key.created', row, { scopes: row.scopes.split(' ') });
        return recordEvent(trx, clock, { orgId: actor.orgId, type: 'api_key.created', data: presentApiKey(row, clock.now()) });
      });
      deps.onEvent(recorded);
      return { row, key };
    },

    /** Any member sees the organization's keys (never their secrets). */
    async get(orgId: string, id: string): Promise<ApiKeyRow> {
      const row = await repo.findInOrg(orgId, id);
      if (!row) throw new AppError('not_found', 'No API key with this id.');
      return row;
    },

    /** The scopes a live key of the organization holds now (what route-policy.ts holds a caller against); undefined: none. */
    async scopesOf(orgId: string, id: string): Promise<string[] | undefined> {
      return (await repo.findInOrg(orgId, id))?.scopes.split(' ');
    },

    async list(orgId: string, limit: number, cursor?: string) {
      return toPage(await repo.listForOrg(orgId, limit + 1, cursor), limit);
    },

    /**
     * Rename, narrow the scopes, change the expiry or the key's own limits. Scopes can only be
     * taken away (a leaked key must not be widened by whoever holds the owner's session briefly:
     * widening means a new key). Takes effect at once on every instance.
     */
    async update(actor: KeyActor, id: string, input: UpdateKeyInput): Promise<ApiKeyRow> {
      const { row, recorded } = await repo.db.transaction().execute(async (trx) => {
        const keys = createApiKeysRepository(trx);
        // Read under the row's lock (PostgreSQL; SQLite has one writer): two narrowings at once
        // each start from what the other left, so neither puts back a scope the other removed.
        const current = await keys.findInOrgLocked(actor.orgId, id, deps.dialect);
        if (!current) return { row: undefined, recorded: undefined };
        assertMayManage(actor, current, 'member');
        const change: Partial<ApiKeyRow> = limitColumns(input, current);
        if (input.name !== undefined) change.name = cleanName(input.name);
        if (input.expires_at !== undefined) change.expires_at = expiryOf(input.expires_at);
        if (input.scopes !== undefined) {
          const held = current.scopes.split(' ');
          if (input.scopes.some((s) => !held.includes(s))) throw fieldError('/scopes', 'not_narrower', 'Scopes can only be removed from a key; create a new key for more.');
          assertMayHoldScopes(input.scopes, actor.serviceRole);
          change.scopes = KEY_SCOPES.filter((s) => input.scopes!.includes(s)).join(' ');
        }
        const updated = (await keys.update(actor.orgId, id, change))!;
        await auditKey(trx, clock, actor, 'api_key.updated', updated, { fields: Object.keys(input) });
        return { row: updated, recorded: await recordEvent(trx, clock, { orgId: actor.orgId, type: 'api_key.updated', data: presentApiKey(updated, clock.now()) }) };
      });
      if (!row || !recorded) throw new AppError('not_found', 'No API key with this id.');
      deps.onEvent(recorded);
      await announce('api-keys-changed', [row.secret_hash, row.previous_secret_hash]);
      return row;
    },

    /**
     * A new secret for the key (same id, scopes and limits). The old secret keeps working for
     * `graceSeconds` (0: refused at once); a secret from an earlier roll stops now.
     */
    async roll(actor: KeyActor, id: string, graceSeconds: number): Promise<{ row: ApiKeyRow; key: string }> {
      const key = generateApiKey();
      const now = clock.now();
      const rolled = await repo.db.transaction().execute(async (trx) => {
        const keys = createApiKeysRepository(trx);
        // Locked until the commit (PostgreSQL; SQLite has one writer): two rolls at once take turns.
        const current = await keys.findInOrgLocked(actor.orgId, id, deps.dialect);
        if (!current) return undefined;
        assertMayManage(actor, current, 'member');
        const row = await keys.update(actor.orgId, id, {
          secret_hash: sha256Hex(key), prefix: key.slice(0, 8), last_four: key.slice(-4),
          previous_secret_hash: graceSeconds > 0 ? current.secret_hash : null,
          previous_expires_at: graceSeconds > 0 ? isoTime(now + graceSeconds * 1000) : null,
        });
        await auditKey(trx, clock, actor, 'api_key.rolled', row!, { grace_seconds: graceSeconds });
        const recorded = await recordEvent(trx, clock, { orgId: actor.orgId, type: 'api_key.rolled', data: presentApiKey(row!, now) });
        return { current, row: row!, recorded };
      });
      if (!rolled) throw new AppError('not_found', 'No API key with this id.');
      deps.onEvent(rolled.recorded);
      const { current } = rolled;
      await announce('api-keys-revoked', [current.previous_secret_hash, graceSeconds > 0 ? null : current.secret_hash]);
      if (graceSeconds > 0) await announce('api-keys-changed', [current.secret_hash]);
      return { row: rolled.row, key };
    },

    /**
     * Spends uses of a key that has a number of them (each admitted request, or a verification's
     * cost). One UPDATE: exact across instances and restarts.
     */
    async spendUses(keyId: string, cost: number): Promise<UsesSpent> {
      const now = clock.now();
      const remaining = await repo.spendUses(keyId, cost, periodStarts(now));
      if (remaining !== undefined) return { remaining };
      const row = await repo.findById(keyId);
      const refill = row?.refill_interval ?? null;
      return { exhausted: true, retryAfterSeconds: refill === null ? null : Math.max(1, Math.ceil((nextPeriodStart(refill, now) - now) / 1000)) };
    },

    /** Uses left of a key (a refill that is due applied); null: unlimited. */
    async usesLeft(keyId: string): Promise<number | null> {
      const row = await repo.findById(keyId);
      return row ? usesLeft(row, clock.now()) : null;
    },

    /** Takes effect at once on every instance: the bus tells each to drop the key. */
    async revoke(actor: KeyActor, id: string): Promise<void> {
      // Anyone may revoke a key of their own (a demoted member too); others' keys need an admin.
      const revoked = await revokeIn(actor.orgId, id, actor, (key) => assertMayManage(actor, key, 'viewer'));
      if (!revoked) throw new AppError('not_found', 'No API key with this id.');
    },

    /** The operator's `npx gatehouse keys revoke`: any organization's live key, with the same effects; the audit record names no user. */
    async revokeAsOperator(id: string): Promise<ApiKeyRow | undefined> {
      const key = await repo.findById(id);
      return key && key.revoked_at === null ? revokeIn(key.org_id, id, { userId: null }, () => {}) : undefined;
    },

    /**
     * Revokes every live key of the account inside the caller's transaction (a password reset
     * revokes them with the password change, both or neither). `announce`, called after the
     * commit, makes every instance drop them at once.
     */
    async revokeAllWithin(trx: Kysely<Database>, userId: string): Promise<{ ids: string[]; announce(): Promise<void> }> {
      const revoked = await createApiKeysRepository(trx).revokeAllForUser(userId, isoTime(clock.now()));
      const ids = revoked.map((r) => r.id);
      // One event per organization, to its own webhooks; each gives back what it held.
      const byOrg = new Map<string, string[]>();
      for (const r of revoked) byOrg.set(r.orgId, [...(byOrg.get(r.orgId) ?? []), r.id]);
      const recorded: RecordedEvent[] = [];
      for (const [orgId, orgIds] of [...byOrg].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await releaseCapacity(trx, orgId, 'api_key_count', orgIds.length);
        recorded.push(await recordEvent(trx, clock, { orgId, type: 'api_key.revoked', data: { ids: orgIds } }));
      }
      return {
        ids,
        async announce() {
          if (revoked.length === 0) return;
          for (const event of recorded) deps.onEvent(event);
          await announce('api-keys-revoked', revoked.flatMap((r) => r.hashes));
        },
      };
    },

    /** The hashes of every key a user created (read before the account is deleted, announced after with `forget`). */
    hashesOf: (userId: string): Promise<string[]> => repo.hashesForUser(userId),
    /** Every instance forgets (and refuses) these keys at once. */
    forget: (hashes: string[]): Promise<void> => announce('api-keys-revoked', hashes),
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
