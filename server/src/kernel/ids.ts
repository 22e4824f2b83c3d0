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
  passkey: 'psk',
  identity: 'idn',
  organization: 'org',
  invitation: 'inv',
  auditEvent: 'aud',
  oauthApp: 'app',
  signInCode: 'sic',
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

/** Moves (lastMs, counter) to the next id's position: both id writers share this one sequence. */
function tick(now: number): void {
  if (now > lastMs) {
    lastMs = now;
    counter = pool.readUInt16BE(fromPool(2)) & 0x7ff; // start in the lower half so increments rarely overflow
  } else if (++counter > 0xfff) {
    // Counter exhausted inside one millisecond: borrow the next millisecond.
    lastMs++;
    counter = 0;
  }
}

/** Fills `bytes` (16 long) with a UUIDv7 in place; newId reuses one buffer for all ids. */
function writeUuidv7(bytes: Buffer, now: number): Buffer {
  tick(now);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  const at = fromPool(8);
  pool.copy(bytes, 8, at, at + 8);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  return bytes;
}

export function uuidv7Bytes(now = Date.now()): Buffer {
  return writeUuidv7(Buffer.allocUnsafe(16), now);
}

/**
 * 128 bits → 26 base32 chars with 2 zero pad bits in front, so the first char carries only the
 * top 3 bits as TypeID specifies; then 5 bits at a time from a small accumulator. (No BigInt and
 * no per-bit loop: this runs for every request id.)
 */
export function encodeBase32(bytes: Buffer): string {
  let out = ALPHABET[bytes[0]! >> 5]!;
  let acc = bytes[0]! & 0x1f;
  let bits = 5;
  for (let i = 1; i < 16; i++) {
    acc = (acc << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out; // 5 + 15 × 8 = 125 bits after the first char: exactly 25 more, none left over
}

/** Five-bit groups of a non-negative integer below 2^32 (`count` chars, most significant first). */
function chars(value: number, count: number): string {
  let out = '';
  for (let shift = (count - 1) * 5; shift >= 0; shift -= 5) out += ALPHABET[(value >>> shift) & 31];
  return out;
}

// The first 10 characters encode the 2 pad bits and the 48-bit millisecond: the same for every
// id of one millisecond, so they are encoded once per millisecond.
let prefixMs = -1;
let prefixChars = '';
function millisecondChars(ms: number): string {
  if (ms !== prefixMs) {
    prefixMs = ms;
    const high = Math.floor(ms / 2 ** 25); // top 23 bits (48 - 25)
    prefixChars = chars(high, 5) + chars(ms % 2 ** 25, 5); // 25 bits (2 of them pad) + 25 bits
  }
  return prefixChars;
}

/**
 * A new id: the same bits as `encodeBase32(uuidv7Bytes(now))`, computed without a Buffer: every
 * request gets one (its request id), so this is on the hot path.
 */
export function newId(kind: IdKind, now = Date.now()): string {
  tick(now);
  const random1 = ((pool.readUInt32BE(fromPool(4)) & 0x3fffffff) | 0x80000000) >>> 0; // RFC 4122 variant on top
  const random2 = pool.readUInt32BE(fromPool(4));
  const versionAndCounter = 0x7000 | counter; // 16 bits
  // The remaining 80 bits in four groups of 20: [ver+counter 16 | r1 4] [r1 20] [r1 8 | r2 12] [r2 20].
  return ID_PREFIXES[kind] + '_' + millisecondChars(lastMs)
    + chars(versionAndCounter * 16 + (random1 >>> 28), 4)
    + chars((random1 >>> 8) & 0xfffff, 4)
    + chars(((random1 & 0xff) << 12) | (random2 >>> 20), 4)
    + chars(random2 & 0xfffff, 4);
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
