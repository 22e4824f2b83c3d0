/**
 * The webhook operations of issue 22 through the SDK against a live `gatehouse serve`: a loopback
 * receiver that fails, then recovers; redelivery of one delivery and of all failed since a time;
 * secret rotation with an overlap. Real time, one-second retry delay (two attempts per delivery).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../src/index.js';
import { rejection, signUp } from './helpers.js';
import { startLiveServer, type LiveServer } from './live-server.js';

let server: LiveServer;
let hooks: Server;
let hookUrl: string;
let answer = { status: 503, body: 'maintenance' };
const received: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];

beforeAll(async () => {
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body, status: answer.status });
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const address = hooks.address();
  hookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  server = await startLiveServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1' });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => hooks?.close(resolve));
});

/** Polls until the delivery reaches `status` (the server's worker runs on real time). */
async function settled(list: () => Promise<WebhookDelivery[]>, id: string, status: string): Promise<WebhookDelivery> {
  for (let i = 0; i < 150; i++) {
    const found = (await list()).find((d) => d.id === id);
    if (found?.status === status) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`delivery ${id} never became ${status}`);
}

/** The Standard Webhooks signature of a received request under `secret`. */
const signatureWith = (secret: string, r: (typeof received)[number]) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`).digest('base64')}`;

describe('webhook operations', () => {
  it('redelivers one delivery and all failed since a time, with their original webhook-id', async () => {
    const { gh } = await signUp(server);
    const endpoint = await gh.webhooks.create({ url: hookUrl, events: ['webhook.test'] });
    const list = async () => (await gh.webhooks.deliveries(endpoint.id)).data;
    answer = { status: 503, body: 'maintenance' };
    const since = new Date().toISOString();
    const one = await gh.webhooks.test(endpoint.id);
    const failed = await settled(list, one.id, 'failed');
    expect(failed.attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([[503, 'maintenance'], [503, 'maintenance']]);
    expect(failed.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);

    answer = { status: 204, body: '' };
    const again = await gh.webhooks.redeliver(endpoint.id, one.id);
    expect(again).toMatchObject({ id: one.id, event_id: one.event_id, status: 'pending' });
    expect(await settled(list, one.id, 'delivered')).toMatchObject({ attempt_count: 3, last_status_code: 204 });
    expect(received.filter((r) => r.headers['webhook-id'] === one.event_id).map((r) => r.status)).toEqual([503, 503, 204]);

    answer = { status: 500, body: '' };
    const two = await gh.webhooks.test(endpoint.id);
    await settled(list, two.id, 'failed');
    answer = { status: 200, body: 'ok' };
    expect(await gh.webhooks.redeliverFailed(endpoint.id, { since })).toEqual({ redelivered: 1 });
    await settled(list, two.id, 'delivered');
    expect(received.filter((r) => r.headers['webhook-id'] === two.event_id && r.status === 200)).toHaveLength(1);
    expect(await gh.webhooks.redeliverFailed(endpoint.id, { since })).toEqual({ redelivered: 0 });

    const future = await rejection(gh.webhooks.redeliverFailed(endpoint.id, { since: new Date(Date.now() + 3600_000).toISOString() }));
    expect(future).toMatchObject({ status: 400, code: 'validation_failed', errors: [expect.objectContaining({ field: '/since', code: 'in_future' })] });
    expect(await rejection(gh.webhooks.redeliver(endpoint.id, 'dlv_01m8cd360veykraps318ngyykd'))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('rotates the secret: both sign during the overlap, the new one first', async () => {
    const { gh } = await signUp(server);
    answer = { status: 200, body: 'ok' };
    const endpoint = await gh.webhooks.create({ url: hookUrl, events: ['webhook.test'] });
    const rotated = await gh.webhooks.rotateSecret(endpoint.id, { overlap_seconds: 600 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(590_000);
    expect((await gh.webhooks.get(endpoint.id)).previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);

    const test = await gh.webhooks.test(endpoint.id);
    await settled(async () => (await gh.webhooks.deliveries(endpoint.id)).data, test.id, 'delivered');
    const got = received.find((r) => r.headers['webhook-id'] === test.event_id)!;
    expect(String(got.headers['webhook-signature']).split(' ')).toEqual([signatureWith(rotated.secret!, got), signatureWith(endpoint.secret!, got)]);

    const now = await gh.webhooks.rotateSecret(endpoint.id, { overlap_seconds: 0 });
    expect(now.previous_secret_expires_at).toBeNull();
    expect(await rejection(gh.webhooks.rotateSecret(endpoint.id, { overlap_seconds: 604_801 }))).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});
