import type { Kysely } from 'kysely';
import { AppError, fieldError } from '../../core/errors.js';
import type { Database } from '../../infra/db/schema.js';
import { toPage } from '../../core/pagination.js';
import type { Bus } from '../../infra/bus.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import { newId } from '../../core/ids.js';
import { sha256Hex } from '../tokens/opaque-tokens.js';
import { isServiceScope, KEY_SCOPES, USER_SCOPES } from '../../core/scopes.js';
import { nextPeriodStart, periodStarts, usesLeft, type RefillInterval } from './key-uses.js';
import { cleanName } from '../../core/names.js';
import { generateApiKey } from './api-key-format.js';
import { lockAccount, releaseCapacity, takeCapacity } from '../accounts/account-caps.js';
import type { DialectName } from '../../infra/db/database.js';
import { recordEvent, type RecordedEvent } from '../events/event-outbox.js';
import type { OnEventsCommitted } from '../events/event-signal.js';
import { presentApiKey } from './api-keys.presenter.js';
import { createApiKeysRepository, type ApiKeyRow, type ApiKeysRepository } from './api-keys.repository.js';

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

  /** Service scopes are an administrator's to give (API.md §3): anyone else gets 403. */
  function assertMayHold(scopes: readonly string[], role: string): void {
    if (role !== 'admin' && scopes.some(isServiceScope)) {
      throw new AppError('forbidden', 'Only administrators create service keys (scope credentials:verify).');
    }
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

  /** Every instance drops what it cached under these hashes (revoked: refuses them too). */
  async function announce(type: 'api-keys-changed' | 'api-keys-revoked', hashes: (string | null)[]): Promise<void> {
    const present = hashes.filter((h): h is string => h !== null);
    if (present.length) await bus.publish({ type, hashes: present });
  }

  return {
    async create(userId: string, role: string, input: CreateKeyInput): Promise<{ row: ApiKeyRow; key: string }> {
      const name = cleanName(input.name);
      const scopes = input.scopes ?? [...USER_SCOPES];
      assertMayHold(scopes, role);
      const key = generateApiKey();
      const row: ApiKeyRow = {
        id: newId('apiKey'),
        user_id: userId,
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
        await takeCapacity(trx, userId, 'api_key_count', deps.maxActiveKeys, 'active API keys; revoke one first');
        await createApiKeysRepository(trx).insert(row);
        return recordEvent(trx, clock, { userId, type: 'api_key.created', data: presentApiKey(row, clock.now()) });
      });
      deps.onEvent(recorded);
      return { row, key };
    },

    async get(userId: string, id: string): Promise<ApiKeyRow> {
      const row = await repo.findForUser(userId, id);
      if (!row) throw new AppError('not_found', 'No API key with this id.');
      return row;
    },

    async list(userId: string, limit: number, cursor?: string) {
      return toPage(await repo.listForUser(userId, limit + 1, cursor), limit);
    },

    /**
     * Rename, narrow the scopes, change the expiry or the key's own limits. Scopes can only be
     * taken away (a leaked key must not be widened by whoever holds the owner's session briefly:
     * widening means a new key). Takes effect at once on every instance.
     */
    async update(userId: string, role: string, id: string, input: UpdateKeyInput): Promise<ApiKeyRow> {
      const { row, recorded } = await repo.db.transaction().execute(async (trx) => {
        const keys = createApiKeysRepository(trx);
        // Read under the row's lock (PostgreSQL; SQLite has one writer): two narrowings at once
        // each start from what the other left, so neither puts back a scope the other removed.
        const current = await keys.findForUserLocked(userId, id, deps.dialect);
        if (!current) return { row: undefined, recorded: undefined };
        const change: Partial<ApiKeyRow> = limitColumns(input, current);
        if (input.name !== undefined) change.name = cleanName(input.name);
        if (input.expires_at !== undefined) change.expires_at = expiryOf(input.expires_at);
        if (input.scopes !== undefined) {
          const held = current.scopes.split(' ');
          if (input.scopes.some((s) => !held.includes(s))) throw fieldError('/scopes', 'not_narrower', 'Scopes can only be removed from a key; create a new key for more.');
          assertMayHold(input.scopes, role);
          change.scopes = KEY_SCOPES.filter((s) => input.scopes!.includes(s)).join(' ');
        }
        const updated = (await keys.update(userId, id, change))!;
        return { row: updated, recorded: await recordEvent(trx, clock, { userId, type: 'api_key.updated', data: presentApiKey(updated, clock.now()) }) };
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
    async roll(userId: string, id: string, graceSeconds: number): Promise<{ row: ApiKeyRow; key: string }> {
      const key = generateApiKey();
      const now = clock.now();
      const rolled = await repo.db.transaction().execute(async (trx) => {
        const keys = createApiKeysRepository(trx);
        // Locked until the commit (PostgreSQL; SQLite has one writer): two rolls at once take turns.
        const current = await keys.findForUserLocked(userId, id, deps.dialect);
        if (!current) return undefined;
        const row = await keys.update(userId, id, {
          secret_hash: sha256Hex(key), prefix: key.slice(0, 8), last_four: key.slice(-4),
          previous_secret_hash: graceSeconds > 0 ? current.secret_hash : null,
          previous_expires_at: graceSeconds > 0 ? isoTime(now + graceSeconds * 1000) : null,
        });
        const recorded = await recordEvent(trx, clock, { userId, type: 'api_key.rolled', data: presentApiKey(row!, now) });
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
    async revoke(userId: string, id: string): Promise<void> {
      const { hashes, recorded } = await repo.db.transaction().execute(async (trx) => {
        await lockAccount(trx, deps.dialect, userId); // the account first, as a password reset's revoke-all does
        const revoked = await createApiKeysRepository(trx).revoke(userId, id, isoTime(clock.now()));
        if (!revoked) return { hashes: undefined, recorded: undefined };
        await releaseCapacity(trx, userId, 'api_key_count');
        return { hashes: revoked, recorded: await recordEvent(trx, clock, { userId, type: 'api_key.revoked', data: { id, ids: [id] } }) };
      });
      if (!hashes || !recorded) throw new AppError('not_found', 'No API key with this id.');
      deps.onEvent(recorded);
      await announce('api-keys-revoked', hashes);
    },

    /**
     * Revokes every live key of the account inside the caller's transaction (a password reset
     * revokes them with the password change, both or neither). `announce`, called after the
     * commit, makes every instance drop them at once.
     */
    async revokeAllWithin(trx: Kysely<Database>, userId: string): Promise<{ ids: string[]; announce(): Promise<void> }> {
      const revoked = await createApiKeysRepository(trx).revokeAllForUser(userId, isoTime(clock.now()));
      const ids = revoked.map((r) => r.id);
      let recorded: RecordedEvent | undefined;
      if (ids.length) {
        await releaseCapacity(trx, userId, 'api_key_count', ids.length);
        recorded = await recordEvent(trx, clock, { userId, type: 'api_key.revoked', data: { ids } });
      }
      return {
        ids,
        async announce() {
          if (revoked.length === 0) return;
          if (recorded) deps.onEvent(recorded);
          await announce('api-keys-revoked', revoked.flatMap((r) => r.hashes));
        },
      };
    },

    /** Before an account disappears, make every instance forget its keys. */
    async forgetUser(userId: string): Promise<void> {
      await announce('api-keys-revoked', await repo.hashesForUser(userId));
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
