import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets Gatehouse must read back (private signing keys, webhook signing secrets, TOTP
 * secrets), at rest: sealed with AES-256-GCM under a key derived by HKDF from GATEHOUSE_SECRET
 * for each kind, so one kind's ciphertext never opens as another's; stored plain, behind a
 * marker, when GATEHOUSE_SECRET is not set (the embedded development default).
 */
const SEALED = 'enc:v1:';

export interface SecretSealer {
  seal(plain: string, master: string | undefined): string;
  /** Throws with a message for operators when the master secret is missing or wrong. */
  open(stored: string, master: string | undefined): string;
}

/**
 * `kind` names the secrets in messages ("signing key"); `purpose` is the HKDF info (never
 * change it once rows exist); `plainMarker` the prefix of unsealed values.
 */
export function secretSealer(options: { kind: string; purpose: string; plainMarker: string }): SecretSealer {
  const { kind, purpose, plainMarker } = options;
  const keyFor = (master: string) => Buffer.from(hkdfSync('sha256', master, 'gatehouse', purpose, 32));
  return {
    seal(plain, master) {
      if (!master) return plainMarker + plain;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(master), iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join(':');
    },
    open(stored, master) {
      if (stored.startsWith(plainMarker)) return stored.slice(plainMarker.length);
      if (!stored.startsWith(SEALED)) throw new Error(`${kind} has an unknown storage format`);
      if (!master) throw new Error(`${kind}s are encrypted: set GATEHOUSE_SECRET to the value they were created with`);
      const [iv, tag, body] = stored.slice(SEALED.length).split(':').map((p) => Buffer.from(p, 'base64url'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(master), iv!);
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
      } catch {
        throw new Error(`GATEHOUSE_SECRET does not open the stored ${kind}s`);
      }
    },
  };
}
