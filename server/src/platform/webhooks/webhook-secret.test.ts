import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret, signPayload } from './webhook-secret.js';

describe('webhook secrets and signatures', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(s);
  });

  it('signs exactly as Standard Webhooks verifies', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', data: { é: 'ü' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': signPayload(secret, 'evt_1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('ü', 'u'), headers)).toThrow();
  });

  it('seals at rest under GATEHOUSE_SECRET and opens only with it', () => {
    const secret = newWebhookSecret();
    const master = 'x'.repeat(40);
    const sealed = sealWebhookSecret(secret, master);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openWebhookSecret(sealed, master)).toBe(secret);
    expect(() => openWebhookSecret(sealed, 'y'.repeat(40))).toThrow();
    expect(() => openWebhookSecret(sealed, undefined)).toThrow(/GATEHOUSE_SECRET/);
    expect(openWebhookSecret(sealWebhookSecret(secret, undefined), undefined)).toBe(secret);
  });
});
