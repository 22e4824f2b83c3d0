import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/kernel/clock.js';
import { bearer, dialect, type TestApp } from '../harness.js';
import { appWithReceivers } from './app-with-receivers.js';
import type { Receiver, Received } from './receiver.js';

/**
 * Signing-secret rotation (issue 22), checked with the reference library, standardwebhooks: during
 * the overlap a delivery verifies with the old secret and with the new one; after it (the injected
 * clock moved past it), only with the new one. Overlaps stay under the library's five-minute
 * timestamp tolerance, since it compares the signed timestamp (our clock) with the real time.
 */
const SEAL_KEY = 'rotation-test-seal-key-0123456789abcdef';
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1', GATEHOUSE_SECRET: SEAL_KEY };

describe(`webhook secret rotation (${dialect})`, () => {
  let t: TestApp;
  const receiver = appWithReceivers(ENV, (app) => (t = app));

  const call = (token: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request({ method, url, headers: { ...bearer(token), ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const hook = async (token: string, url: string) => {
    const res = await call(token, 'POST', '/v1/webhooks', { url, events: ['webhook.test'] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string };
  };
  const rotate = async (token: string, id: string, body: unknown = {}, headers: Record<string, string> = {}) => {
    const res = await call(token, 'POST', `/v1/webhooks/${id}/rotate-secret`, body, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; secret: string | null; previous_secret_expires_at: string | null };
  };
  /** Sends a test event and returns what the receiver got for it. */
  const delivered = async (token: string, id: string, rx: Receiver): Promise<Received> => {
    const test = await call(token, 'POST', `/v1/webhooks/${id}/test`);
    expect(test.statusCode, test.body).toBe(202);
    await t.deps.webhooks.worker.runOnce();
    const got = rx.received.find((r) => r.headers['webhook-id'] === test.json().event_id);
    expect(got).toBeDefined();
    return got!;
  };
  const verifies = (secret: string, r: Received) => {
    try {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      return 'verified';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('signs with both secrets during the overlap, then with the new one only', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const rx = await receiver();
    const { id, secret: oldSecret } = await hook(token, rx.url);
    const rotated = await rotate(token, id, { overlap_seconds: 120 });
    const newSecret = rotated.secret!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated).toMatchObject({ id, enabled: true, previous_secret_expires_at: isoTime(t.clock.now() + 120_000) });
    const shown = await call(token, 'GET', `/v1/webhooks/${id}`);
    expect(shown.json()).toMatchObject({ previous_secret_expires_at: rotated.previous_secret_expires_at });
    expect(shown.body).not.toContain('secret"');

    const during = await delivered(token, id, rx);
    const entries = String(during.headers['webhook-signature']).split(' ');
    expect(entries).toHaveLength(2);
    expect(entries.every((e) => e.startsWith('v1,'))).toBe(true);
    expect(verifies(oldSecret, during)).toBe('verified');
    expect(verifies(newSecret, during)).toBe('verified');
    // The new secret's signature comes first.
    expect(verifies(newSecret, { ...during, headers: { ...during.headers, 'webhook-signature': entries[0] } })).toBe('verified');

    t.clock.advance(121_000);
    const after = await delivered(token, id, rx);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(newSecret, after)).toBe('verified');
    expect(verifies(oldSecret, after)).toBe('No matching signature found');
    expect((await call(token, 'GET', `/v1/webhooks/${id}`)).json().previous_secret_expires_at).toBeNull();
  });

  it('a second rotation during the overlap keeps at most two secrets; overlap 0 stops the old one at once', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const rx = await receiver();
    const { id, secret: first } = await hook(token, rx.url);
    const second = (await rotate(token, id, { overlap_seconds: 600 })).secret!;
    const third = (await rotate(token, id, { overlap_seconds: 600 })).secret!;
    const got = await delivered(token, id, rx);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(third, got), verifies(second, got), verifies(first, got)]).toEqual(['verified', 'verified', 'No matching signature found']);

    const fourth = await rotate(token, id, { overlap_seconds: 0 });
    expect(fourth.previous_secret_expires_at).toBeNull();
    const now = await delivered(token, id, rx);
    expect([verifies(fourth.secret!, now), verifies(third, now)]).toEqual(['verified', 'No matching signature found']);

    // Without a body: the default overlap, one day.
    expect((await rotate(token, id)).previous_secret_expires_at).toBe(isoTime(t.clock.now() + 86_400_000));
  });

  it('keeps the previous secret sealed, audits the rotation, and never replays a secret', async () => {
    const user = await t.signUp();
    const token = user.tokens.access_token;
    const rx = await receiver();
    const { id, secret: oldSecret } = await hook(token, rx.url);
    const once = { 'idempotency-key': `rotate-${id}` };
    const rotated = await rotate(token, id, { overlap_seconds: 300 }, once);
    const replay = await rotate(token, id, { overlap_seconds: 300 }, once);
    expect(replay).toEqual({ ...rotated, secret: null });
    const kept = await t.deps.database.db.selectFrom('idempotency_keys').select('response_body').execute();
    expect(JSON.stringify(kept)).not.toContain(rotated.secret!);

    const row = await t.deps.database.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', id).executeTakeFirstOrThrow();
    for (const plain of [oldSecret, rotated.secret!]) {
      expect(JSON.stringify(row)).not.toContain(plain.slice('whsec_'.length, 20));
    }
    expect(row.previous_secret).not.toBeNull();

    const orgId = await t.personalOrgId(user.id);
    const audit = (await call(token, 'GET', `/v1/organizations/${orgId}/audit-log`)).json().data as Array<{ action: string; target_id: string; detail: Record<string, unknown> }>;
    expect(audit.filter((e) => e.action === 'webhook.secret_rotated')).toEqual([
      expect.objectContaining({ target_id: id, detail: { overlap_seconds: 300, previous_secret_expires_at: rotated.previous_secret_expires_at } }),
    ]);
  });

  it('re-enabling an endpoint a 410 disabled clears the reason; test and redelivery then carry both signatures', async () => {
    const token = (await t.signUp()).tokens.access_token;
    const rx = await receiver();
    await rx.set({ status: 410 });
    const { id, secret: oldSecret } = await hook(token, rx.url);
    const newSecret = (await rotate(token, id, { overlap_seconds: 120 })).secret!;
    const gone = await delivered(token, id, rx);
    expect((await call(token, 'GET', `/v1/webhooks/${id}`)).json()).toMatchObject({ enabled: false, disabled_reason: expect.stringMatching(/410/) });
    expect((await call(token, 'POST', `/v1/webhooks/${id}/test`)).statusCode).toBe(409);

    await rx.set({ status: 200 });
    const enabled = await call(token, 'PATCH', `/v1/webhooks/${id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null });
    const test = await delivered(token, id, rx);
    expect([verifies(oldSecret, test), verifies(newSecret, test)]).toEqual(['verified', 'verified']);

    const goneDelivery = (await call(token, 'GET', `/v1/webhooks/${id}/deliveries?status=failed`)).json().data[0];
    expect(goneDelivery).toMatchObject({ event_id: gone.headers['webhook-id'], last_status_code: 410 });
    expect((await call(token, 'POST', `/v1/webhooks/${id}/deliveries/${goneDelivery.id}/redeliver`)).statusCode).toBe(202);
    await t.deps.webhooks.worker.runOnce();
    const again = rx.received.filter((r) => r.headers['webhook-id'] === goneDelivery.event_id);
    expect(again.map((r) => r.answered)).toEqual([410, 200]);
    expect([verifies(oldSecret, again[1]!), verifies(newSecret, again[1]!)]).toEqual(['verified', 'verified']);
  });

  it('refuses bad overlaps, unknown and foreign endpoints, and roles below admin', async () => {
    const owner = await t.signUp();
    const token = owner.tokens.access_token;
    const rx = await receiver();
    const { id } = await hook(token, rx.url);
    for (const overlap of [-1, 604_801, 1.5, '60']) {
      const res = await call(token, 'POST', `/v1/webhooks/${id}/rotate-secret`, { overlap_seconds: overlap });
      expect(res.statusCode, String(overlap)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: '/overlap_seconds' })] });
    }
    expect((await call(token, 'POST', `/v1/webhooks/${id}/rotate-secret`, { overlap_seconds: 604_800 })).statusCode).toBe(200);
    expect((await call(token, 'POST', `/v1/webhooks/${id}/rotate-secret`, { overlap: 60 })).statusCode).toBe(400);
    expect((await call(token, 'POST', '/v1/webhooks/whk_01m8cd360veykraps318ngyykd/rotate-secret', {})).json().code).toBe('not_found');
    expect((await call(token, 'POST', '/v1/webhooks/nope/rotate-secret', {})).json().code).toBe('not_found');
    const stranger = (await t.signUp()).tokens.access_token;
    expect((await call(stranger, 'POST', `/v1/webhooks/${id}/rotate-secret`, {})).statusCode).toBe(404);

    // A team: its webhooks are written by admins and owners only.
    const team = (await call(token, 'POST', '/v1/organizations', { name: 'Hooks team' })).json().id as string;
    const teamHook = (await call(token, 'POST', '/v1/webhooks', { url: rx.url, events: ['webhook.test'] }, { 'gatehouse-organization': team })).json().id as string;
    const test = (await call(token, 'POST', `/v1/webhooks/${teamHook}/test`, undefined, { 'gatehouse-organization': team })).json();
    const members: Record<string, string> = {};
    for (const role of ['viewer', 'member', 'admin'] as const) {
      const user = await t.signUp();
      await t.deps.database.db.insertInto('memberships').values({ org_id: team, user_id: user.id, role, created_at: new Date().toISOString() }).execute();
      members[role] = user.tokens.access_token;
    }
    const ops = [
      ['rotate-secret', {}],
      ['redeliver', { since: isoTime(t.clock.now()) }],
      [`deliveries/${test.id}/redeliver`, undefined],
    ] as const;
    for (const [path, body] of ops) {
      for (const role of ['viewer', 'member'] as const) {
        const res = await call(members[role]!, 'POST', `/v1/webhooks/${teamHook}/${path}`, body, { 'gatehouse-organization': team });
        expect(res.statusCode, `${role} ${path}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'insufficient_role', required_role: 'admin', role });
      }
      const res = await call(members.admin!, 'POST', `/v1/webhooks/${teamHook}/${path}`, body, { 'gatehouse-organization': team });
      expect(res.statusCode, `admin ${path}: ${res.body}`).toBe(path === 'rotate-secret' ? 200 : 202);
    }
    // The team's endpoint is not the owner's personal organization's.
    expect((await call(token, 'POST', `/v1/webhooks/${teamHook}/rotate-secret`, {})).statusCode).toBe(404);
  });
});
