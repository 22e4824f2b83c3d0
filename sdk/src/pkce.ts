/**
 * PKCE (RFC 7636) for provider sign-in: a random verifier the app keeps, and its S256 challenge
 * that travels in the browser. Uses Web Crypto where it exists (browsers, Node, Deno, Bun); on
 * React Native (Hermes has `crypto.getRandomValues` only with a polyfill such as expo-crypto's,
 * and no `crypto.subtle`), SHA-256 falls back to the small implementation below.
 */

/** Random bytes from the platform: `crypto.getRandomValues`, or the caller's source. */
export type RandomBytes = (length: number) => Uint8Array;

export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
}

function base64url(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += alphabet[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += alphabet[n & 63]!;
  }
  return out;
}

function platformRandomBytes(length: number): Uint8Array {
  const crypto = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (!crypto?.getRandomValues) {
    throw new TypeError('No crypto.getRandomValues here: pass randomBytes (on React Native, expo-crypto\'s getRandomBytes), or install a polyfill.');
  }
  return crypto.getRandomValues(new Uint8Array(length));
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** FIPS 180-4 SHA-256 of ASCII text (a PKCE verifier is ASCII by definition). */
export function sha256Ascii(text: string): Uint8Array {
  const bitLength = text.length * 8;
  const padded = new Uint8Array(((text.length + 9 + 63) >> 6) << 6);
  for (let i = 0; i < text.length; i += 1) padded[i] = text.charCodeAt(i) & 0xff;
  padded[text.length] = 0x80;
  new DataView(padded.buffer).setUint32(padded.length - 4, bitLength);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const view = new DataView(padded.buffer);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t += 1) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t += 1) {
      const s0 = rotr(w[t - 15]!, 7) ^ rotr(w[t - 15]!, 18) ^ (w[t - 15]! >>> 3);
      const s1 = rotr(w[t - 2]!, 17) ^ rotr(w[t - 2]!, 19) ^ (w[t - 2]! >>> 10);
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t += 1) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0]! += a; h[1]! += b; h[2]! += c; h[3]! += d; h[4]! += e; h[5]! += f; h[6]! += g; h[7]! += hh;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i += 1) outView.setUint32(i * 4, h[i]!);
  return out;
}

/** base64url(SHA-256(verifier)): the S256 challenge. */
export async function pkceChallenge(codeVerifier: string): Promise<string> {
  const subtle = (globalThis as { crypto?: { subtle?: { digest?: (alg: string, data: Uint8Array) => Promise<ArrayBuffer> } } }).crypto?.subtle;
  if (subtle?.digest) return base64url(new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier))));
  return base64url(sha256Ascii(codeVerifier));
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

export interface SignInNonce {
  /** Send this one to Gatehouse (`signInWithIdToken({ nonce })`). */
  nonce: string;
  /** Give this one to a sheet that wants the nonce hashed (Sign in with Apple): SHA-256, hex. */
  hashedNonce: string;
}

/**
 * A nonce for a native sign-in (Apple, Google): binds the sheet's ID token to this one sign-in,
 * so a token taken from elsewhere cannot be replayed here. Apple's sheet takes `hashedNonce` and
 * puts it in the token; Google's takes `nonce` as it is. Gatehouse accepts either in the token
 * when the app sends it `nonce`.
 */
export function createSignInNonce(randomBytes: RandomBytes = platformRandomBytes): SignInNonce {
  const nonce = hex(randomBytes(32));
  return { nonce, hashedNonce: hex(sha256Ascii(nonce)) };
}

/** A new verifier (32 random bytes, 43 characters) and its challenge. */
export async function createPkcePair(randomBytes: RandomBytes = platformRandomBytes): Promise<PkcePair> {
  const codeVerifier = base64url(randomBytes(32));
  return { codeVerifier, codeChallenge: await pkceChallenge(codeVerifier) };
}
