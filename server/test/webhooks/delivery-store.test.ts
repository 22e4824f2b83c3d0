import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoTime } from '../../src/kernel/clock.js';
import { openDatabase, type DatabaseHandle } from '../../src/kernel/db/database.js';
import { newId } from '../../src/kernel/ids.js';
import { recordEvent } from '../../src/kernel/events/event-outbox.js';
import { createDeliveryStore } from '../../src/platform/webhooks/delivery-store.js';
import { createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * Claims on the outbox, below the worker: concurrent claimers (on PostgreSQL, separate
 * connection pools, as separate instances would be) never take the same row; a lapsed lease is
 * retaken and the stale holder can no longer write an outcome; a released claim is due at once.
 */
describe(`delivery claims (${dialect})`, () => {
  let t: TestApp;
  let orgId: string;
  let endpointId: string;
  const extra: DatabaseHandle[] = [];
  const LEASE = 20_000;
  beforeAll(async () => {
    t = await createTestApp();
    await t.deps.webhooks.worker.stop(); // these tests are the only claimers
    orgId = await t.personalOrgId((await t.register()).id);
    endpointId = newId('webhook');
    const now = isoTime(t.clock.now());
    await t.deps.database.db.insertInto('webhook_endpoints').values({
      id: endpointId, org_id: orgId, url: 'http://127.0.0.1:9/never-called', description: null, events: '*', secret: 'plain:whsec_AAAA',
      enabled: 1, disabled_reason: null, created_at: now, updated_at: now,
    }).execute();
  });
  afterAll(async () => {
    for (const h of extra) await h.close();
    await t.close();
  });

  const store = (handle: DatabaseHandle = t.deps.database) =>
    createDeliveryStore({ db: handle.db, dialect: handle.dialect, clock: t.clock, retryDelays: [1], leaseMs: LEASE });
  const record = async (n: number) => {
    for (let i = 0; i < n; i++) await recordEvent(t.deps.database.db, t.clock, { orgId, type: 'webhook.test', data: { i } });
  };
  /** Another "instance": its own pool on the same database (PostgreSQL); SQLite has one writer anyway. */
  async function otherHandle(): Promise<DatabaseHandle> {
    if (t.deps.database.dialect === 'sqlite') return t.deps.database;
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.deps.database.db);
    const handle = await openDatabase({ url: process.env.DATABASE_URL!, schema: rows[0]!.schema, poolSize: 4 });
    extra.push(handle);
    return handle;
  }

  it('concurrent claimers take disjoint rows', async () => {
    await record(120);
    const stores = [store(await otherHandle()), store(await otherHandle())];
    const taken: string[] = [];
    await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      for (;;) {
        const claims = await stores[i % 2]!.claim(5);
        if (claims.length === 0) return;
        taken.push(...claims.map((c) => c.id));
      }
    }));
    expect(taken).toHaveLength(120);
    expect(new Set(taken).size).toBe(120);
    expect(await store().claim(10)).toEqual([]); // all leased
    t.clock.advance(LEASE + 1);
    for (const c of await store().claim(200)) await store().record(c, { kind: 'attempted', status: 200, error: null, durationMs: 1 , responseExcerpt: null });
  });

  it('retakes a lapsed lease and fences the stale holder out', async () => {
    await record(1);
    const [stale] = await store().claim(10);
    expect(stale).toBeDefined();
    expect(await store().claim(10)).toEqual([]);
    t.clock.advance(LEASE + 1);
    const [fresh] = await store(await otherHandle()).claim(10);
    expect(fresh?.id).toBe(stale!.id);
    expect(await store().record(stale!, { kind: 'attempted', status: 200, error: null, durationMs: 5 , responseExcerpt: null })).toBe(false);
    expect(await store().record(fresh!, { kind: 'attempted', status: 500, error: null, durationMs: 5 , responseExcerpt: null })).toBe(true);
    const row = await t.deps.database.db.selectFrom('deliveries').selectAll().where('id', '=', fresh!.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, locked_until: null, next_attempt_at: isoTime(t.clock.now() + 1_000) });
    const attempts = await t.deps.database.db.selectFrom('delivery_attempts').select('status_code').where('delivery_id', '=', fresh!.id).execute();
    expect(attempts).toEqual([{ status_code: 500 }]);
    // The last delay is spent: the next failure is final.
    t.clock.advance(1_000);
    const [last] = await store().claim(10);
    await store().record(last!, { kind: 'attempted', status: null, error: 'ECONNREFUSED', durationMs: 1 , responseExcerpt: null });
    expect(await t.deps.database.db.selectFrom('deliveries').select(['status', 'attempts']).where('id', '=', fresh!.id).executeTakeFirstOrThrow()).toEqual({ status: 'failed', attempts: 2 });
  });

  it('a released claim is due again at once', async () => {
    await record(1);
    const [claim] = await store().claim(10);
    await store().release(claim!);
    const [again] = await store().claim(10);
    expect(again?.id).toBe(claim!.id);
    await store().record(again!, { kind: 'attempted', status: 204, error: null, durationMs: 1 , responseExcerpt: null });
  });
});
