import { createHmac, randomBytes } from 'node:crypto';
import { secretSealer } from '../../infra/sealed-secrets.js';

/**
 * Endpoint signing secrets and the Standard Webhooks signature
 * (https://www.standardwebhooks.com): `whsec_` + base64 of 32 random bytes; the signature is
 * `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed with the decoded bytes.
 * The secret must be readable to sign, so it is stored reversibly (infra/sealed-secrets.ts).
 */
const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const sealer = secretSealer({ kind: 'webhook secret', purpose: 'webhook-secrets v1', plainMarker: 'plain:' });
export const sealWebhookSecret = sealer.seal;
export const openWebhookSecret = sealer.open;
