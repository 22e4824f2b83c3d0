import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets and the Standard Webhooks signature
 * (https://www.standardwebhooks.com): `whsec_` + base64 of 32 random bytes; the signature is
 * `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed with the decoded bytes.
 * The secret must be readable to sign, so it is stored reversibly: sealed with AES-256-GCM under
 * GATEHOUSE_SECRET when that is set (as the signing keys are), plain otherwise.
 */
const PREFIX = 'whsec_';
const PLAIN = 'plain:';
const SEALED = 'enc:v1:';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'gatehouse', 'webhook-secrets v1', 32));
}

export function sealWebhookSecret(plain: string, gatehouseSecret: string | undefined): string {
  if (!gatehouseSecret) return PLAIN + plain;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(gatehouseSecret), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join(':');
}

export function openWebhookSecret(stored: string, gatehouseSecret: string | undefined): string {
  if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
  if (!stored.startsWith(SEALED)) throw new Error('webhook secret has an unknown storage format');
  if (!gatehouseSecret) throw new Error('webhook secrets are encrypted: set GATEHOUSE_SECRET to the value they were created with');
  const [iv, tag, body] = stored.slice(SEALED.length).split(':').map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(gatehouseSecret), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
}
