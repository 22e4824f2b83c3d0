import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventRetention, EVENT_RETENTION_MS } from '../../src/kernel/events/event-retention.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

describe(`outbox retention (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('prunes old finished events with their deliveries, and keeps pending and recent ones', async () => {
    const user = await t.signUp();
    const orgId = await t.personalOrgId(user.id);
    let auth = bearer(user.tokens.access_token);
    const hook = (await t.request({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'http://127.0.0.1:9/h', events: ['agent.*'] } })).json();
    await t.deps.webhooks.worker.stop(); // keep deliveries exactly as this test sets them
    const db = t.deps.database.db;
    const makeAgent = async (name: string) => (await t.request({ method: 'POST', url: '/v1/agents', headers: auth, payload: { name, model: 'm' } })).json().id as string;
    await makeAgent('old-finished');
    await makeAgent('old-pending');
    const [finished, pending] = await db.selectFrom('events').select(['id', 'data']).where('org_id', '=', orgId).orderBy('id').execute();
    await db.updateTable('deliveries').set({ status: 'delivered' }).where('event_id', '=', finished!.id).execute();
    await db.updateTable('deliveries').set({ status: 'pending' }).where('event_id', '=', pending!.id).execute();
    t.clock.advance(EVENT_RETENTION_MS + 60_000);
    auth = bearer((await t.login(user.email, user.password)).access_token);
    await makeAgent('recent');

    const pruned = await createEventRetention({ db, clock: t.clock, onError: (e) => { throw e; } }).pruneOnce();
    expect(pruned).toBeGreaterThanOrEqual(1);
    const left = (await db.selectFrom('events').select('id').where('org_id', '=', orgId).execute()).map((e) => e.id);
    expect(left).not.toContain(finished!.id);
    expect(left).toContain(pending!.id);
    expect(left).toHaveLength(2);
    const deliveries = await db.selectFrom('deliveries').select('event_id').where('endpoint_id', '=', hook.id).execute();
    expect(deliveries.map((d) => d.event_id)).not.toContain(finished!.id);
  });
});
