import type { Kysely } from 'kysely';
import { AppError, fieldError } from '../../core/errors.js';
import type { Database } from '../../infra/db/schema.js';
import { toPage } from '../../core/pagination.js';
import type { Bus } from '../../infra/bus.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import { newId } from '../../core/ids.js';
import { sha256Hex } from '../tokens/opaque-tokens.js';
import { ALL_SCOPES } from '../tokens/scopes.js';
import { cleanName } from '../../core/names.js';
import { generateApiKey } from './api-key-format.js';
import { lockAccount, releaseCapacity, takeCapacity } from '../accounts/account-caps.js';
import type { DialectName } from '../../infra/db/database.js';
import { recordEvent, type RecordedEvent } from '../events/event-outbox.js';
import type { OnEventsCommitted } from '../events/event-signal.js';
import { presentApiKey } from './api-keys.presenter.js';
import { createApiKeysRepository, type ApiKeyRow, type ApiKeysRepository } from './api-keys.repository.js';

const MAX_LIFETIME_MS = 5 * 366 * 86_400_000;

export function createApiKeysService(deps: { repo: ApiKeysRepository; dialect: DialectName; bus: Bus; clock: Clock; maxActiveKeys: number; onEvent: OnEventsCommitted }) {
  const { repo, bus, clock } = deps;
  return {
    async create(userId: string, input: { name: string; scopes?: string[]; expires_at?: string | null }): Promise<{ row: ApiKeyRow; key: string }> {
      const name = cleanName(input.name);
      const scopes = input.scopes ?? [...ALL_SCOPES];
      let expiresAt: string | null = null;
      if (input.expires_at) {
        const at = Date.parse(input.expires_at);
        if (!(at > clock.now())) throw fieldError('/expires_at', 'in_past', 'expires_at must be in the future.');
        if (at - clock.now() > MAX_LIFETIME_MS) throw fieldError('/expires_at', 'too_far', 'expires_at must be within 5 years.');
        expiresAt = isoTime(at);
      }
      const key = generateApiKey();
      const row: ApiKeyRow = {
        id: newId('apiKey'),
        user_id: userId,
        name,
        secret_hash: sha256Hex(key),
        prefix: key.slice(0, 8),
        last_four: key.slice(-4),
        // Stored in the canonical order, so a key's scopes read the same however they were sent.
        scopes: ALL_SCOPES.filter((s) => scopes.includes(s)).join(' '),
        created_at: isoTime(clock.now()),
        expires_at: expiresAt,
        last_used_at: null,
        revoked_at: null,
      };
      const recorded = await repo.db.transaction().execute(async (trx) => {
        await takeCapacity(trx, userId, 'api_key_count', deps.maxActiveKeys, 'active API keys; revoke one first');
        await createApiKeysRepository(trx).insert(row);
        return recordEvent(trx, clock, { userId, type: 'api_key.created', data: presentApiKey(row) });
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

    /** Takes effect at once on every instance: the bus tells each to drop the key. */
    async revoke(userId: string, id: string): Promise<void> {
      const { hash, recorded } = await repo.db.transaction().execute(async (trx) => {
        await lockAccount(trx, deps.dialect, userId); // the account first, as a password reset's revoke-all does
        const revoked = await createApiKeysRepository(trx).revoke(userId, id, isoTime(clock.now()));
        if (!revoked) return { hash: undefined, recorded: undefined };
        await releaseCapacity(trx, userId, 'api_key_count');
        return { hash: revoked, recorded: await recordEvent(trx, clock, { userId, type: 'api_key.revoked', data: { id, ids: [id] } }) };
      });
      if (!hash || !recorded) throw new AppError('not_found', 'No API key with this id.');
      deps.onEvent(recorded);
      await bus.publish({ type: 'api-keys-revoked', hashes: [hash] });
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
          await bus.publish({ type: 'api-keys-revoked', hashes: revoked.map((r) => r.secret_hash) });
        },
      };
    },

    /** Before an account disappears, make every instance forget its keys. */
    async forgetUser(userId: string): Promise<void> {
      const hashes = await repo.hashesForUser(userId);
      if (hashes.length) await bus.publish({ type: 'api-keys-revoked', hashes });
    },
  };
}
export type ApiKeysService = ReturnType<typeof createApiKeysService>;
