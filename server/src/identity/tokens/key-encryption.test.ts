import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openPrivateKey, sealPrivateKey } from './key-encryption.js';

const SECRET = 'a'.repeat(40);
const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('signing keys at rest', () => {
  it('are sealed with GATEHOUSE_SECRET and open only with it', () => {
    const sealed = sealPrivateKey(pem, SECRET);
    expect(sealed.startsWith('enc:v1:')).toBe(true);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(openPrivateKey(sealed, SECRET)).toBe(pem);
    expect(() => openPrivateKey(sealed, 'b'.repeat(40))).toThrow(/does not open/);
    expect(() => openPrivateKey(sealed, undefined)).toThrow(/GATEHOUSE_SECRET/);
  });

  it('refuse a tampered ciphertext', () => {
    const sealed = sealPrivateKey(pem, SECRET);
    const parts = sealed.split(':');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[4] = body.toString('base64url');
    expect(() => openPrivateKey(parts.join(':'), SECRET)).toThrow();
  });

  it('are plain PEM without a secret (embedded development default)', () => {
    expect(openPrivateKey(sealPrivateKey(pem, undefined), undefined)).toBe(pem);
  });
});
