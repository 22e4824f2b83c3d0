import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Private signing keys at rest. With GATEHOUSE_SECRET they are sealed with AES-256-GCM under a
 * key derived by HKDF; without it they are stored as plain PEM (embedded dev default).
 */
const PLAIN = 'pem:';
const SEALED = 'enc:v1:';

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'gatehouse', 'signing-keys v1', 32));
}

export function sealPrivateKey(pem: string, secret: string | undefined): string {
  if (!secret) return PLAIN + pem;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret), iv);
  const body = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
  return SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join(':');
}

export function openPrivateKey(stored: string, secret: string | undefined): string {
  if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
  if (!stored.startsWith(SEALED)) throw new Error('signing key has an unknown storage format');
  if (!secret) throw new Error('signing keys are encrypted: set GATEHOUSE_SECRET to the value they were created with');
  const [iv, tag, body] = stored.slice(SEALED.length).split(':').map((p) => Buffer.from(p, 'base64url'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret), iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('GATEHOUSE_SECRET does not open the stored signing keys');
  }
}
