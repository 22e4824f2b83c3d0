import { createHmac, randomBytes } from 'node:crypto';
import { secretSealer } from '../../kernel/sealed-secrets.js';

/**
 * Endpoint signing secrets and the Standard Webhooks signature
 * (https://www.standardwebhooks.com): `whsec_` + base64 of 32 random bytes; the signature is
 * `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed with the decoded bytes.
 * The secret must be readable to sign, so it is stored reversibly (kernel/sealed-secrets.ts).
 */
const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * `webhook-signature` with one `v1,…` entry per secret, space-separated, as Standard Webhooks
 * allows: during a rotation's overlap a receiver verifies with either its old or its new secret.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signPayload(secret, id, timestamp, body)).join(' ');
}

/** The plain secrets an endpoint signs with at `nowMs`: the current one first, then the previous one until it expires. */
export function signingSecrets(
  e: { storedSecret: string; previousSecret: string | null; previousSecretExpiresAt: string | null },
  nowMs: number,
  sealKey: string | undefined,
): string[] {
  const current = openWebhookSecret(e.storedSecret, sealKey);
  const previousLive = e.previousSecret !== null && e.previousSecretExpiresAt !== null && Date.parse(e.previousSecretExpiresAt) > nowMs;
  return previousLive ? [current, openWebhookSecret(e.previousSecret!, sealKey)] : [current];
}

const sealer = secretSealer({ kind: 'webhook secret', purpose: 'webhook-secrets v1', plainMarker: 'plain:' });
export const sealWebhookSecret = sealer.seal;
export const openWebhookSecret = sealer.open;
