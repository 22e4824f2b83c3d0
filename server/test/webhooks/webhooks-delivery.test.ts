import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/kernel/clock.js';
import { newId } from '../../src/kernel/ids.js';
import { newWebhookSecret, sealWebhookSecret } from '../../src/platform/webhooks/webhook-secret.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { appWithReceivers } from './app-with-receivers.js';

/** Real HTTP receivers on 127.0.0.1 (hence WEBHOOK_ALLOW_PRIVATE=true), one-second retry delays. */
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1' };

/** A clock for the test that lets the timer-driven worker see real time pass. */
class RealClock extends ManualClock {
  override now(): number {
    return Date.now();
  }
}

describe(`webhook delivery (${dialect})`, () => {
  let t: TestApp;
  let token: string;
  const receiver = appWithReceivers(ENV, (app) => (t = app));
  beforeAll(async () => {
    token = (await t.signUp()).tokens.access_token;
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, auth = token, app = t) =>
    app.request({ method, url, headers: bearer(auth), ...(payload !== undefined ? { payload: payload as object } : {}) });
  const hook = async (url: string, events: string[], app = t, auth = token) => {
    const res = await call('POST', '/v1/webhooks', { url, events }, auth, app);
    expect(res.statusCode).toBe(201);
    return res.json() as { id: string; secret: string };
  };
  const deliveries = async (id: string, app = t, auth = token) => (await call('GET', `/v1/webhooks/${id}/deliveries`, undefined, auth, app)).json().data;
  const runOnce = (app = t) => app.deps.webhooks.worker.runOnce();

  it('delivers chat.message.created signed per Standard Webhooks; the runtime answers with an API key', async () => {
    const rx = await receiver();
    const agent = (await call('POST', '/v1/agents', { name: 'Support', model: 'gpt-4o' })).json();
    const chat = (await call('POST', '/v1/chats', { agent_id: agent.id })).json();
    const key = (await call('POST', '/v1/api-keys', { name: 'runtime', scopes: ['chats:read', 'chats:write'] })).json().key as string;
    const { id, secret } = await hook(rx.url, ['chat.message.created']);
    const message = await call('POST', `/v1/chats/${chat.id}/messages`, { role: 'user', content: 'Where is my order?' });
    expect(message.statusCode).toBe(201);

    await rx.waitFor((r) => r.length === 1);
    const got = rx.received[0]!;
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({
      id: got.headers['webhook-id'], type: 'chat.message.created', created_at: expect.stringMatching(/Z$/),
      data: { id: message.json().id, chat_id: chat.id, agent_id: agent.id, role: 'user', content: 'Where is my order?' },
    });
    expect(got.headers['content-type']).toBe('application/json');
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers as Record<string, string>)).toThrow();

    const reply = await call('POST', `/v1/chats/${chat.id}/messages`, { role: 'assistant', content: 'It ships today.' }, key);
    expect(reply.statusCode).toBe(201);
    await runOnce();
    const list = await deliveries(id);
    expect(list.at(-1)).toMatchObject({ event_id: payload.id, event_type: 'chat.message.created', status: 'delivered', attempt_count: 1, last_status_code: 200, next_attempt_at: null });
    expect(list.at(-1).attempts).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
  });

  it('retries a receiver that is down, then failing, and delivers once it is back', async () => {
    const rx = await receiver('down');
    const { id } = await hook(rx.url, ['webhook.test']);
    const test = await call('POST', `/v1/webhooks/${id}/test`);
    expect(test.statusCode).toBe(202);
    expect(test.json()).toMatchObject({ event_type: 'webhook.test', status: 'pending' });
    await runOnce();
    expect((await deliveries(id))[0]).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null, last_error: expect.stringMatching(/ECONNREFUSED/) });
    await rx.set({ status: 500 });
    await runOnce(); // not due yet: the next try waits one second
    expect(rx.received).toHaveLength(0);
    t.clock.advance(1_000);
    await runOnce();
    expect((await deliveries(id))[0]).toMatchObject({ status: 'pending', attempt_count: 2, last_status_code: 500 });
    await rx.set({ status: 200 });
    t.clock.advance(1_000);
    await runOnce();
    const [d] = await deliveries(id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 3, last_status_code: 200, next_attempt_at: null });
    expect(d.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([null, 500, 200]);
    expect(rx.acceptedIds()).toEqual([test.json().event_id]);
  });

  it('gives up after the last delay of WEBHOOK_RETRY_DELAYS', async () => {
    const rx = await receiver({ status: 503 });
    const { id } = await hook(rx.url, ['webhook.test']);
    await call('POST', `/v1/webhooks/${id}/test`);
    for (let i = 0; i < 6; i++) {
      await runOnce();
      t.clock.advance(1_000);
    }
    expect((await deliveries(id))[0]).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: 503, next_attempt_at: null });
    expect(rx.received).toHaveLength(4); // the first try and one per delay
  });

  it('disables an endpoint that answers 410 and sends it nothing more', async () => {
    const rx = await receiver({ status: 410 });
    const { id } = await hook(rx.url, ['agent.*']);
    await call('POST', '/v1/agents', { name: 'One', model: 'm' });
    await runOnce();
    expect((await call('GET', `/v1/webhooks/${id}`)).json()).toMatchObject({ enabled: false, disabled_reason: expect.stringMatching(/410/) });
    expect((await deliveries(id))[0]).toMatchObject({ status: 'failed', last_status_code: 410, attempt_count: 1 });
    await call('POST', '/v1/agents', { name: 'Two', model: 'm' });
    t.clock.advance(60_000);
    await runOnce();
    expect(rx.received).toHaveLength(1);
    expect(await deliveries(id)).toHaveLength(1);
  });

  it('times out a receiver that never answers, without holding up the API', async () => {
    const rx = await receiver('hang');
    const { id } = await hook(rx.url, ['webhook.test']);
    await call('POST', `/v1/webhooks/${id}/test`);
    await rx.waitFor((r) => r.length === 1);
    const started = Date.now();
    expect((await call('GET', '/v1/webhooks')).statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    await runOnce();
    expect((await deliveries(id))[0]).toMatchObject({ status: 'pending', attempt_count: 1, last_error: 'timed out after 10000 ms' });
    expect(Date.now() - started).toBeGreaterThan(8_000);
  }, 30_000);

  it('checks the address again at delivery: a URL that now reaches loopback is refused without connecting', async () => {
    const app = await createTestApp({ env: { WEBHOOK_RETRY_DELAYS: '1' } }); // the guard is on
    try {
      const user = await app.signUp();
      const auth = user.tokens.access_token;
      const orgId = await app.personalOrgId(user.id);
      const rx = await receiver();
      const now = new Date().toISOString();
      const ids: string[] = [];
      // As if DNS changed after the URL was accepted: rows written directly, past the save-time check.
      for (const url of [rx.url, rx.url.replace('127.0.0.1', 'localhost'), rx.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')]) {
        const id = newId('webhook');
        ids.push(id);
        await app.deps.database.db.insertInto('webhook_endpoints').values({
          id, org_id: orgId, url, description: null, events: 'webhook.test', secret: sealWebhookSecret(newWebhookSecret(), undefined),
          enabled: 1, disabled_reason: null, created_at: now, updated_at: now,
        }).execute();
        expect((await call('POST', `/v1/webhooks/${id}/test`, undefined, auth, app)).statusCode).toBe(202);
      }
      await runOnce(app);
      for (const id of ids) {
        expect((await deliveries(id, app, auth))[0]).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null, last_error: expect.stringMatching(/loopback/) });
      }
      expect(rx.received).toHaveLength(0);
    } finally {
      await app.close();
    }
  });

  it('runs on its own timers: real time, no runOnce', async () => {
    const app = await createTestApp({ env: ENV, clock: new RealClock() });
    try {
      const auth = (await app.signUp()).tokens.access_token;
      const rx = await receiver('down');
      const { id } = await hook(rx.url, ['webhook.test'], app, auth);
      const eventId = (await call('POST', `/v1/webhooks/${id}/test`, undefined, auth, app)).json().event_id;
      const until = async (check: (d: { attempt_count: number; status: string }) => boolean) => {
        for (let i = 0; i < 100 && !check((await deliveries(id, app, auth))[0]); i++) await new Promise((r) => setTimeout(r, 50));
        return (await deliveries(id, app, auth))[0];
      };
      expect(await until((d) => d.attempt_count >= 1)).toMatchObject({ attempt_count: 1, status: 'pending' });
      await rx.set({ status: 500 });
      expect(await until((d) => d.attempt_count >= 2)).toMatchObject({ attempt_count: 2, last_status_code: 500 });
      await rx.set({ status: 204 });
      expect(await until((d) => d.status !== 'pending')).toMatchObject({ status: 'delivered', attempt_count: 3, last_status_code: 204 });
      expect(rx.acceptedIds()).toEqual([eventId]);
    } finally {
      await app.close();
    }
  }, 30_000);
});
