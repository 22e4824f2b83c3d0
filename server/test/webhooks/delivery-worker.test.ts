import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { startReceiver } from './receiver.js';

/** Shutdown: close() must not wait out a slow receiver, and must not lose what it was sending. */
describe(`delivery worker shutdown (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('aborts a request in flight and hands its claim back, recording no attempt', async () => {
    const rx = await startReceiver('hang');
    try {
      const auth = bearer((await t.signUp()).tokens.access_token);
      const hook = (await t.request({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: rx.url, events: ['webhook.test'] } })).json();
      const delivery = (await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, headers: auth })).json();
      await rx.waitFor((r) => r.length === 1);
      const before = await t.deps.database.db.selectFrom('deliveries').select('locked_until').where('id', '=', delivery.id).executeTakeFirstOrThrow();
      expect(before.locked_until).not.toBeNull(); // claimed while in flight
      const started = Date.now();
      await t.deps.webhooks.worker.stop();
      expect(Date.now() - started).toBeLessThan(2_000);
      const after = await t.deps.database.db.selectFrom('deliveries').selectAll().where('id', '=', delivery.id).executeTakeFirstOrThrow();
      expect(after).toMatchObject({ status: 'pending', attempts: 0, locked_until: null });
      const attempts = await t.deps.database.db.selectFrom('delivery_attempts').select('id').where('delivery_id', '=', delivery.id).execute();
      expect(attempts).toEqual([]);
    } finally {
      await rx.close();
    }
  });
});
