import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../../kernel/clock.js';
import { isoTime } from '../../kernel/clock.js';
import type { Database } from '../../kernel/db/schema.js';
import { sha256Hex } from '../../kernel/opaque-tokens.js';
import { periodicTask } from '../../kernel/periodic-task.js';
import { secretSealer } from '../../kernel/sealed-secrets.js';

/**
 * The OAuth engine's storage (oidc-provider's Adapter) over `oauth_records`, so any instance
 * finishes a flow another began and nothing lives only in one process's memory.
 *
 * An id is a bearer secret for most models (a code, a refresh token), so a row is found by the
 * id's SHA-256 and the payload is kept without its `jti`; a read puts it back from the id it was
 * asked for. Device user codes and uids are looked up by their hash too, and the ids those rows
 * must give back (a device code, the engine's session cookie) are sealed under GATEHOUSE_SECRET.
 * Clients are not here: `oauth-clients.ts` answers for the `Client` model.
 */
/** The ids the engine must get back from a lookup by user code or uid (a device code, its session cookie's value), sealed at rest. */
const recordIds = secretSealer({ kind: 'OAuth record id', purpose: 'oauth-record-ids v1', plainMarker: 'plain:' });

export function oauthRecordsAdapter(db: Kysely<Database>, clock: Clock, secret: string | undefined, endGrant: (grantId: string) => Promise<unknown>) {
  /** A live row by one of its keys, as the engine stored it (with `jti` restored when the id is known, and `consumed`). */
  async function read(model: string, column: 'id_hash' | 'user_code_hash' | 'uid_hash', value: string, id?: string): Promise<AdapterPayload | undefined> {
    const row = await db
      .selectFrom('oauth_records')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', model)
      .where(column, '=', value)
      .executeTakeFirst();
    if (!row || (row.expires_at !== null && Date.parse(row.expires_at) <= clock.now())) return undefined;
    const { jti_sealed: sealed, ...payload } = JSON.parse(row.payload) as AdapterPayload & { jti_sealed?: string };
    if (sealed !== undefined) payload.jti = recordIds.open(sealed, secret);
    if (id !== undefined) payload.jti = id;
    if (row.consumed_at !== null) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
    return payload;
  }

  return class OauthRecords implements Adapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      // Found again by user code or uid (device codes, sessions, interactions): the engine needs
      // their jti back from that lookup, so those keep it, sealed. Codes and tokens never do.
      const { jti, ...withoutId } = payload;
      const stored = (payload.userCode || payload.uid) && jti ? { ...withoutId, jti_sealed: recordIds.seal(jti, secret) } : withoutId;
      const row = {
        payload: JSON.stringify(stored),
        grant_id: payload.grantId ?? null,
        user_code_hash: payload.userCode ? sha256Hex(payload.userCode) : null,
        uid_hash: payload.uid ? sha256Hex(payload.uid) : null,
        account_id: payload.accountId ?? null,
        expires_at: expiresIn ? isoTime(clock.now() + expiresIn * 1000) : null,
      };
      // A re-save never un-consumes: consumed_at is only ever set (consume).
      await db
        .insertInto('oauth_records')
        .values({ model: this.model, id_hash: sha256Hex(id), ...row, consumed_at: null })
        .onConflict((c) => c.columns(['model', 'id_hash']).doUpdateSet(row))
        .execute();
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return read(this.model, 'id_hash', sha256Hex(id), id);
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return read(this.model, 'user_code_hash', sha256Hex(userCode));
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return read(this.model, 'uid_hash', sha256Hex(uid));
    }

    /**
     * Single use under concurrency: the engine reads `consumed`, then consumes. Two requests with
     * the same code or refresh token can both read it unconsumed; only one UPDATE finds it so, and
     * the other ends the grant (as a reuse would) and fails.
     */
    async consume(id: string): Promise<void> {
      const consumed = await db
        .updateTable('oauth_records')
        .set({ consumed_at: isoTime(clock.now()) })
        .where('model', '=', this.model)
        .where('id_hash', '=', sha256Hex(id))
        .where('consumed_at', 'is', null)
        .returning('grant_id')
        .executeTakeFirst();
      if (consumed) return;
      const row = await db.selectFrom('oauth_records').select('grant_id').where('model', '=', this.model).where('id_hash', '=', sha256Hex(id)).executeTakeFirst();
      if (row?.grant_id) await endGrant(row.grant_id);
      const { errors } = await import('oidc-provider');
      throw new errors.InvalidGrant('this grant was already used');
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_records').where('model', '=', this.model).where('id_hash', '=', sha256Hex(id)).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
    }

  };
}

const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Drops rows past their expiry, hourly: a finished or abandoned flow leaves nothing behind for long. */
export function oauthRecordsSweep(deps: { db: Kysely<Database>; clock: Clock; onError: (error: unknown) => void }) {
  const sweepOnce = async () => {
    const result = await deps.db.deleteFrom('oauth_records').where('expires_at', '<=', isoTime(deps.clock.now())).executeTakeFirst();
    return Number(result.numDeletedRows);
  };
  return { sweepOnce, ...periodicTask(sweepOnce, SWEEP_EVERY_MS, deps.onError) };
}
