import { randomFillSync } from 'node:crypto';

/**
 * TypeID-style identifiers: `<prefix>_<26 chars Crockford base32 of a UUIDv7>`.
 * UUIDv7 puts a millisecond timestamp first, so ids sort by creation time; within one
 * millisecond a monotonic counter (RFC 9562 §6.2 method 1) keeps them strictly increasing,
 * which is what makes cursor pagination stable.
 */
export const ID_PREFIXES = {
  user: 'usr',
  session: 'ses',
  apiKey: 'key',
  agent: 'agt',
  chat: 'cht',
  message: 'msg',
  webhook: 'whk',
  event: 'evt',
  delivery: 'dlv',
  request: 'req',
  signingKey: 'sgk',
  refreshToken: 'rft',
  securityEvent: 'sev',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const DECODE = new Map([...ALPHABET].map((c, i) => [c, i]));

// randomFillSync per id costs microseconds; draw from a pool refilled 4 KiB at a time instead.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function fromPool(n: number): number {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += n;
  return at;
}

let lastMs = 0;
let counter = 0; // 12-bit rand_a used as a counter

export function uuidv7Bytes(now = Date.now()): Buffer {
  if (now > lastMs) {
    lastMs = now;
    counter = pool.readUInt16BE(fromPool(2)) & 0x7ff; // start in the lower half so increments rarely overflow
  } else {
    counter++;
    if (counter > 0xfff) {
      // Counter exhausted inside one millisecond: borrow the next millisecond.
      lastMs++;
      counter = 0;
    }
  }
  const ms = lastMs;
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  pool.copy(bytes, 8, fromPool(8), poolOffset);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  return bytes;
}

/**
 * 128 bits → 26 base32 chars, 5 bits at a time with 2 zero pad bits in front, so the first char
 * carries only 3 bits as TypeID specifies. (No BigInt: this runs for every request id.)
 */
export function encodeBase32(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < 26; i++) {
    const start = i * 5 - 2;
    let v = 0;
    for (let b = start; b < start + 5; b++) v = (v << 1) | (b < 0 ? 0 : (bytes[b >> 3]! >> (7 - (b & 7))) & 1);
    out += ALPHABET[v];
  }
  return out;
}

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIXES[kind]}_${encodeBase32(uuidv7Bytes(now))}`;
}

/** True when `value` is a well-formed id of this kind; cheap enough to run before any lookup. */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  if (value.length !== prefix.length + 27 || !value.startsWith(prefix + '_')) return false;
  const body = value.slice(prefix.length + 1);
  if (body.charCodeAt(0) > 0x37) return false; // first char must be 0-7 to fit in 128 bits
  for (const ch of body) if (!DECODE.has(ch)) return false;
  return true;
}
