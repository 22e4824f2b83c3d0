import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeBase32, isId, newId, uuidv7Bytes } from './ids.js';

describe('ids', () => {
  it('are TypeIDs: prefix, underscore, 26 Crockford base32 chars', () => {
    const id = newId('user');
    expect(id).toMatch(/^usr_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    expect(isId('user', id)).toBe(true);
    expect(isId('session', id)).toBe(false);
    expect(isId('user', id.slice(0, -1))).toBe(false);
    expect(isId('user', id.slice(0, -1) + 'u')).toBe(false); // u is not in the alphabet
    expect(isId('user', 'usr_8' + id.slice(5))).toBe(false); // would overflow 128 bits
  });

  it('sort by creation time, strictly, even within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId('agent', 1_800_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId('agent', 1_800_000_000_001) > ids[ids.length - 1]!).toBe(true);
  });

  it('carry a UUIDv7 (version 7, RFC variant, millisecond timestamp first)', () => {
    const bytes = uuidv7Bytes(1_800_000_000_123);
    expect(bytes[6]! >> 4).toBe(7);
    expect(bytes[8]! >> 6).toBe(2);
    expect(bytes.readUIntBE(0, 6)).toBeGreaterThanOrEqual(1_800_000_000_123);
  });

  it('encodes 128 bits in 26 chars like the TypeID reference', () => {
    expect(encodeBase32(Buffer.alloc(16))).toBe('0'.repeat(26));
    expect(encodeBase32(Buffer.alloc(16, 0xff))).toBe('7' + 'z'.repeat(25));
    // TypeID spec example: 01889c89-df6b-7f1c-a388-91396ec314bc → 01h2e8kqvbfwea724h75qc655w
    expect(encodeBase32(Buffer.from('01889c89df6b7f1ca38891396ec314bc', 'hex'))).toBe('01h2e8kqvbfwea724h75qc655w');
  });

  it('encodes any 128 bits as the plain big-number reading of them would', () => {
    const reference = (b: Buffer) => BigInt(`0x${b.toString('hex')}`).toString(32).padStart(26, '0')
      .replace(/[0-9a-v]/g, (c) => '0123456789abcdefghjkmnpqrstvwxyz'[parseInt(c, 32)]!);
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(16);
      expect(encodeBase32(bytes)).toBe(reference(bytes));
    }
  });
});

describe('newId', () => {
  it('holds a UUIDv7: its timestamp, version 7 and the RFC variant, decoded back from the text', () => {
    const decode = (id: string) => {
      let v = 0n;
      for (const c of id.slice(4)) v = v * 32n + BigInt('0123456789abcdefghjkmnpqrstvwxyz'.indexOf(c));
      return Buffer.from(v.toString(16).padStart(32, '0'), 'hex');
    };
    for (const ms of [0, 1, 2 ** 25 - 1, 2 ** 25, 1_800_000_000_123, 2 ** 47 + 12345]) {
      const bytes = decode(newId('user', ms));
      expect(bytes.readUIntBE(0, 6)).toBeGreaterThanOrEqual(ms);
      expect(bytes[6]! >> 4).toBe(7);
      expect(bytes[8]! >> 6).toBe(2);
    }
    const later = decode(newId('user', 2 ** 47 + 99_999));
    expect(later.readUIntBE(0, 6)).toBe(2 ** 47 + 99_999);
  });
});
