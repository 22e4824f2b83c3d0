import fc from 'fast-check';
import { generateApiKey } from '../../src/access/api-keys/api-key-format.js';
import { badClaimsToken, forgedHeaderToken, malformedToken, type ForgeContext } from './jwt-forgery.js';

/**
 * Authorization header values (undefined: no header). `refused` must all get 401; `accepted`
 * are the RFC-equivalent spellings of a valid credential (the scheme is case-insensitive and
 * may be followed by several spaces, RFC 7235 §2.1), the control case that keeps the test honest.
 */
export interface CredentialContext extends ForgeContext {
  apiKey: string;
  revokedApiKey: string;
  expiredApiKey: string;
  revokedToken: string;
}

const visible = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
const latin1 = fc.string({ unit: fc.integer({ min: 0x09, max: 0xff }).filter((c) => c !== 0x0a && c !== 0x0d && (c < 0x0b || c > 0x1f)).map((c) => String.fromCharCode(c)), maxLength: 80 });
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function apiKeyForgeries(ctx: CredentialContext): fc.Arbitrary<string> {
  const body = fc.string({ unit: fc.constantFrom(...BASE62), minLength: 40, maxLength: 40 });
  const flip = (key: string, at: number) => key.slice(0, at) + (key[at] === 'a' ? 'b' : 'a') + key.slice(at + 1);
  return fc.oneof(
    body.map((b) => `gth_${b}`), // bad checksum (1 in 62^6 chance of a good one, and then unknown)
    fc.constant(null).map(() => generateApiKey()), // good checksum, never issued
    fc.nat({ max: 39 }).map((i) => flip(ctx.apiKey, 4 + i)),
    fc.nat({ max: 43 }).map((n) => ctx.apiKey.slice(0, n)),
    fc.constantFrom(
      `${ctx.apiKey}A`, `${ctx.apiKey}${ctx.apiKey}`, ctx.apiKey.toUpperCase(), ctx.apiKey.replace('gth_', 'GTH_'), ctx.apiKey.replace('gth_', 'gth-'),
      ctx.apiKey.replace('gth_', ''), `gthr_${ctx.apiKey.slice(4)}`, 'gth_', `gth_${'A'.repeat(5_000)}`, ctx.revokedApiKey, ctx.expiredApiKey,
    ),
  );
}

export function refusedAuthorization(ctx: CredentialContext): fc.Arbitrary<string | undefined> {
  const t = ctx.token;
  const credential = fc.oneof(forgedHeaderToken(ctx), malformedToken(ctx), badClaimsToken(ctx), apiKeyForgeries(ctx), visible.filter((s) => !/\s/.test(s) && s.length > 0), fc.constant(ctx.revokedToken));
  return fc.oneof(
    { weight: 6, arbitrary: credential.map((c) => `Bearer ${c}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.oneof(visible, latin1) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        `Basic ${Buffer.from('ada@example.com:password').toString('base64')}`, `Basic ${t}`, `Token ${t}`, `JWT ${t}`, `Bearer-${t}`, `Bearer:${t}`, `Bearer\t${t}`,
        t, ctx.apiKey, 'Bearer', 'Bearer ', 'Bearer  ', '', ' ', `Bearer ${t} ${t}`, `Bearer ${t},`, `Bearer "${t}"`, `Bearer ${ctx.apiKey} ${t}`, `Bearer, Bearer ${t}`,
        `Bearer ${'a'.repeat(4_097)}`, `Bearer ${t}${'A'.repeat(5_000)}`, `Bearer ${'eyJ'.repeat(5_000)}`, `Bearer ${t}\u0000`, `Bearer \u0000${t}`, `Bearer ${t.replace(/\./g, '%2E')}`,
      ),
    },
  );
}

/** Spellings of valid credentials that must authenticate (401 here is a bug, too). */
export function acceptedAuthorization(ctx: CredentialContext): fc.Arbitrary<string> {
  return fc.constantFrom(ctx.token, ctx.apiKey).chain((c) => fc.constantFrom(`Bearer ${c}`, `bearer ${c}`, `BEARER ${c}`, `bEaReR ${c}`, `Bearer   ${c}`, `Bearer ${c} `));
}
