import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/kernel/clock.js';
import { bearer, dialect, type TestApp } from '../harness.js';
import { appWithReceivers } from './app-with-receivers.js';
import { BULK_REDELIVERIES_PER_HOUR } from '../../src/platform/webhooks/webhook-operations.js';

/**
 * Redelivery (issue 22) against real HTTP receivers on 127.0.0.1: a receiver that was down
 * recovers, and what failed meanwhile is sent again, once, with its original webhook-id. Two
 * one-second retry delays (three attempts), moved past with the injected clock, never slept.
 */
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1' };

interface Attempt { status_code: number | null; error: string | null; duration_ms: number; response_excerpt: string | null }
interface Delivery { id: string; event_id: string; status: string; attempt_count: number; next_attempt_at: string | null; attempts: Attempt[] }

describe(`webhook redelivery (${dialect})`, () => {
  let t: TestApp;
  const receiver = appWithReceivers(ENV, (app) => (t = app));

  const call = (token: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.request({ method, url, headers: bearer(token), ...(payload !== undefined ? { payload: payload as object } : {}) });
  const account = async () => (await t.signUp()).tokens.access_token;
  const hook = async (token: string, url: string) => {
    const res = await call(token, 'POST', '/v1/webhooks', { url, events: ['webhook.test'] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string };
  };
  const sendTest = async (token: string, id: string) => {
    const res = await call(token, 'POST', `/v1/webhooks/${id}/test`);
    expect(res.statusCode, res.body).toBe(202);
    return res.json() as Delivery;
  };
  const deliveries = async (token: string, id: string): Promise<Delivery[]> => (await call(token, 'GET', `/v1/webhooks/${id}/deliveries`)).json().data;
  const runOnce = () => t.deps.webhooks.worker.runOnce();
  /** Runs the worker through every attempt the schedule allows (three), moving the clock past each delay. */
  const exhaust = async () => {
    for (let i = 0; i < 3; i++) {
      await runOnce();
      t.clock.advance(1_000);
    }
  };

  it('a delivery redelivered after the receiver recovers arrives once with the original webhook-id', async () => {
    const token = await account();
    const rx = await receiver({ status: 500, body: 'Service down for maintenance\n(try later)' });
    const { id, secret } = await hook(token, rx.url);
    const test = await sendTest(token, id);
    await exhaust();

    const [failed] = await deliveries(token, id);
    expect(failed).toMatchObject({ id: test.id, status: 'failed', attempt_count: 3, next_attempt_at: null });
    // Each attempt shows what the receiver answered: status, time taken, the start of its body.
    expect(failed!.attempts).toHaveLength(3);
    for (const a of failed!.attempts) {
      expect(a).toMatchObject({ status_code: 500, error: null, response_excerpt: 'Service down for maintenance (try later)' });
      expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(rx.received).toHaveLength(3);
    t.clock.advance(60_000);
    await runOnce();
    expect(rx.received).toHaveLength(3); // failed stays failed: nothing more is sent by itself

    await rx.set({ status: 204, body: '' });
    const res = await call(token, 'POST', `/v1/webhooks/${id}/deliveries/${test.id}/redeliver`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ id: test.id, event_id: test.event_id, status: 'pending', attempt_count: 3, next_attempt_at: isoTime(t.clock.now()) });
    expect(res.json().attempts).toHaveLength(3);
    await runOnce();

    const arrived = rx.received.slice(3);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]!.headers['webhook-id']).toBe(test.event_id);
    expect(new Webhook(secret).verify(arrived[0]!.body, arrived[0]!.headers as Record<string, string>)).toMatchObject({ id: test.event_id, type: 'webhook.test' });
    const [delivered] = await deliveries(token, id);
    expect(delivered).toMatchObject({ status: 'delivered', attempt_count: 4, next_attempt_at: null });
    expect(delivered!.attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([[500, expect.any(String)], [500, expect.any(String)], [500, expect.any(String)], [204, '']]);
    t.clock.advance(60_000);
    await runOnce();
    expect(rx.acceptedIds()).toEqual([test.event_id]); // once, and only that once
  });

  it('redelivers every failed delivery since a time, once each, and not the older one', async () => {
    const token = await account();
    const rx = await receiver('down');
    const { id } = await hook(token, rx.url);
    const older = await sendTest(token, id);
    await exhaust();
    t.clock.advance(600_000);
    const since = isoTime(t.clock.now());
    const first = await sendTest(token, id);
    const second = await sendTest(token, id);
    await exhaust();
    const failed = await deliveries(token, id);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
    // Nobody answered: no status, the network error, no excerpt.
    expect(failed[0]!.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/), response_excerpt: null });

    await rx.set({ status: 200 });
    const res = await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ redelivered: 2 });
    await runOnce();
    expect(rx.acceptedIds().sort()).toEqual([first.event_id, second.event_id].sort());
    const after = new Map((await deliveries(token, id)).map((d) => [d.id, d]));
    expect(after.get(first.id)).toMatchObject({ status: 'delivered', attempt_count: 4 });
    expect(after.get(second.id)).toMatchObject({ status: 'delivered', attempt_count: 4 });
    expect(after.get(older.id)).toMatchObject({ status: 'failed', attempt_count: 3 });

    // Nothing failed since then any more: a second call sends nothing.
    expect((await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since })).json()).toEqual({ redelivered: 0 });
    t.clock.advance(60_000);
    await runOnce();
    expect(rx.acceptedIds()).toHaveLength(2);

    // A redelivery goes to the endpoint's URL as it is now: the audit log shows each one that
    // sent something (the call that found nothing is not there), and who asked.
    expect((await call(token, 'POST', `/v1/webhooks/${id}/deliveries/${older.id}/redeliver`)).statusCode).toBe(202);
    const me = (await call(token, 'GET', '/v1/users/me')).json() as { id: string; organization: { id: string } };
    const audit = (await call(token, 'GET', `/v1/organizations/${me.organization.id}/audit-log`)).json().data as Array<{ action: string; target_id: string; actor: { user_id: string }; detail: Record<string, unknown> }>;
    expect(audit.filter((e) => e.action === 'webhook.redelivered').map((e) => ({ target: e.target_id, by: e.actor.user_id, detail: e.detail }))).toEqual([
      { target: id, by: me.id, detail: { delivery_id: older.id } },
      { target: id, by: me.id, detail: { since, count: 2 } },
    ]);
  });

  it('bounds bulk redeliveries that queued something to 20 an hour per endpoint; calls that found nothing are free', async () => {
    const token = await account();
    const rx = await receiver('down');
    const { id } = await hook(token, rx.url);
    const since = isoTime(t.clock.now());
    for (let i = 0; i < 25; i++) expect((await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since })).json()).toEqual({ redelivered: 0 });
    await sendTest(token, id);
    for (let i = 0; i < BULK_REDELIVERIES_PER_HOUR; i++) {
      await exhaust();
      const res = await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since });
      expect(res.json(), `call ${i + 1}`).toEqual({ redelivered: 1 });
    }
    await exhaust();
    const refused = await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('too_many_attempts');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another endpoint of the same organization has its own bound.
    const other = await hook(token, rx.url);
    expect((await call(token, 'POST', `/v1/webhooks/${other.id}/redeliver`, { since })).statusCode).toBe(202);
  });

  it('two bulk calls at once redeliver each failed delivery once between them', async () => {
    const token = await account();
    const rx = await receiver({ status: 500 });
    const { id } = await hook(token, rx.url);
    const since = isoTime(t.clock.now());
    const tests = [await sendTest(token, id), await sendTest(token, id), await sendTest(token, id)];
    await exhaust();
    await rx.set({ status: 200 });
    const answers = await Promise.all([0, 1].map(() => call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since })));
    expect(answers.map((a) => a.statusCode)).toEqual([202, 202]);
    expect(answers.reduce((n, a) => n + (a.json() as { redelivered: number }).redelivered, 0)).toBe(3);
    await runOnce();
    expect(rx.acceptedIds().sort()).toEqual(tests.map((d) => d.event_id).sort());
  });

  it('a redelivery that fails again is failed after one attempt: its retries were used', async () => {
    const token = await account();
    const rx = await receiver({ status: 503 });
    const { id } = await hook(token, rx.url);
    const test = await sendTest(token, id);
    await exhaust();
    expect((await call(token, 'POST', `/v1/webhooks/${id}/deliveries/${test.id}/redeliver`)).statusCode).toBe(202);
    await runOnce();
    expect((await deliveries(token, id))[0]).toMatchObject({ status: 'failed', attempt_count: 4, next_attempt_at: null });
  });

  it('keeps the first 200 bytes of a long answer, cut on a character boundary and marked', async () => {
    const token = await account();
    const body = `a${'é'.repeat(150)}`; // byte 200 is the first half of an é
    const rx = await receiver({ status: 400, body });
    const { id } = await hook(token, rx.url);
    await sendTest(token, id);
    await runOnce();
    const [attempt] = (await deliveries(token, id))[0]!.attempts;
    expect(attempt!.response_excerpt).toBe(`a${'é'.repeat(99)}…`);
    await rx.set({ status: 422, body: 'bad\u0000\u0007input\r\n\u202eevil' });
    t.clock.advance(1_000);
    await runOnce();
    expect((await deliveries(token, id))[0]!.attempts[1]!.response_excerpt).toBe('bad\uFFFD\uFFFDinput  \uFFFDevil');
  });

  it('answers bad requests with problem+json', async () => {
    const token = await account();
    const other = await account();
    const rx = await receiver({ status: 200 });
    const { id } = await hook(token, rx.url);
    const { id: sibling } = await hook(token, rx.url);
    const test = await sendTest(token, id);
    const expectProblem = (res: { statusCode: number; headers: Record<string, unknown>; json(): { code: string; errors?: unknown } }, status: number, code: string) => {
      expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe(code);
      return res.json();
    };
    const redeliver = (endpoint: string, delivery: string, who = token) => call(who, 'POST', `/v1/webhooks/${endpoint}/deliveries/${delivery}/redeliver`);
    expectProblem(await redeliver(id, 'dlv_01m8cd360veykraps318ngyykd'), 404, 'not_found');
    expectProblem(await redeliver(id, 'not-an-id'), 404, 'not_found');
    expectProblem(await redeliver('whk_01m8cd360veykraps318ngyykd', test.id), 404, 'not_found');
    expectProblem(await redeliver(sibling, test.id), 404, 'not_found'); // another endpoint's delivery
    expectProblem(await redeliver(id, test.id, other), 404, 'not_found'); // another account's
    expectProblem(await call(other, 'POST', `/v1/webhooks/${id}/redeliver`, { since: isoTime(t.clock.now()) }), 404, 'not_found');

    const bulk = (since: unknown) => call(token, 'POST', `/v1/webhooks/${id}/redeliver`, since === undefined ? {} : { since });
    const fieldOf = async (since: unknown) => (expectProblem(await bulk(since), 400, 'validation_failed') as { errors: Array<{ field: string; code: string }> }).errors[0];
    expect(await fieldOf(isoTime(t.clock.now() + 60_000))).toMatchObject({ field: '/since', code: 'in_future' });
    expect(await fieldOf(isoTime(t.clock.now() - 31 * 24 * 3600_000))).toMatchObject({ field: '/since', code: 'beyond_retention' });
    expect(await fieldOf('yesterday')).toMatchObject({ field: '/since', code: 'invalid_format' });
    expect(await fieldOf(undefined)).toMatchObject({ field: '/since', code: 'required' });
    expect((await bulk(isoTime(t.clock.now() - 29 * 24 * 3600_000))).json()).toEqual({ redelivered: 0 });

    // A disabled endpoint would fail every delivery at once: enable it first.
    expect((await call(token, 'PATCH', `/v1/webhooks/${id}`, { enabled: false })).statusCode).toBe(200);
    expectProblem(await redeliver(id, test.id), 409, 'conflict');
    expectProblem(await bulk(isoTime(t.clock.now())), 409, 'conflict');
  });

  it('stops a delivery at 50 attempts: 409, and the bulk call passes it over', async () => {
    const token = await account();
    const rx = await receiver({ status: 500 });
    const { id } = await hook(token, rx.url);
    const test = await sendTest(token, id);
    await exhaust();
    await t.deps.database.db.updateTable('deliveries').set({ attempts: 50 }).where('id', '=', test.id).execute();
    const res = await call(token, 'POST', `/v1/webhooks/${id}/deliveries/${test.id}/redeliver`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/50 attempts/) });
    expect((await call(token, 'POST', `/v1/webhooks/${id}/redeliver`, { since: isoTime(t.clock.now() - 3600_000) })).json()).toEqual({ redelivered: 0 });
  });
});
