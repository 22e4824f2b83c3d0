import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';

/**
 * Access tokens an attacker could build, plus tokens signed with the service's real key whose
 * header or claims must still be refused. Every token here must get 401; `expiredToken` must
 * get token_expired precisely.
 */
export interface ForgeContext {
  /** A valid access token of the fuzz account (its payload and signature are reused). */
  token: string;
  kid: string;
  /** The published JWK of the signing key (what /.well-known/jwks.json serves). */
  publicJwk: { kty: string; crv: string; x: string; kid: string };
  /** The service's real private key: for tokens with valid signatures that must still fail. */
  realKey: KeyObject;
  issuer: string;
  audience: string;
  nowS: () => number;
}

const b64u = (data: string | Buffer) => Buffer.from(data).toString('base64url');
const json = (value: unknown) => b64u(JSON.stringify(value));
const attacker = generateKeyPairSync('ed25519');
const attackerJwk = attacker.publicKey.export({ format: 'jwk' });

function parts(token: string) {
  const [h, p, s] = token.split('.') as [string, string, string];
  return { h, p, s, claims: JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown> };
}

/** Signs `headerText.payloadText` (raw texts, so duplicate keys and odd JSON survive) with an Ed25519 key. */
function eddsa(headerText: string, payloadText: string, key: KeyObject, encodePayload = true): string {
  const input = `${b64u(headerText)}.${encodePayload ? b64u(payloadText) : payloadText}`;
  return `${input}.${b64u(sign(null, Buffer.from(input), key))}`;
}

function hmac(alg: 'HS256' | 'HS384' | 'HS512', header: object, payload: object, secret: Buffer | string): string {
  const input = `${json(header)}.${json(payload)}`;
  return `${input}.${createHmac(`sha${alg.slice(2)}`, secret).update(input).digest('base64url')}`;
}

/** Claims of a fresh, otherwise valid token for the account, with `changes` applied. */
function claimsWith(ctx: ForgeContext, changes: Record<string, unknown>): Record<string, unknown> {
  const now = ctx.nowS();
  const base = { ...parts(ctx.token).claims, iat: now, exp: now + 600, jti: `jti-${now}-${Math.random()}` };
  const out: Record<string, unknown> = { ...base, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete out[k];
  return out;
}

const goodHeader = (ctx: ForgeContext) => ({ alg: 'EdDSA', kid: ctx.kid, typ: 'JWT' });

/** Header tricks: the token's own claims, an attacker's or no signature, or the real key with a forbidden field. */
export function forgedHeaderToken(ctx: ForgeContext): fc.Arbitrary<string> {
  const { p, s, claims } = parts(ctx.token);
  const publicSecrets: Array<string | Buffer> = [JSON.stringify(ctx.publicJwk), ctx.publicJwk.x, Buffer.from(ctx.publicJwk.x, 'base64url'), JSON.stringify({ keys: [ctx.publicJwk] })];
  const forbiddenFields: Record<string, unknown>[] = [
    { jwk: attackerJwk }, { jku: 'https://evil.example/jwks.json' }, { x5u: 'https://evil.example/cert.pem' }, { x5c: ['MIIBIjANBgkq'] },
    { crit: ['exp'] }, { crit: ['b64'], b64: false }, { b64: false }, { cty: 'JWT' }, { zip: 'DEF' }, { enc: 'A256GCM' }, { __proto__x: 1 },
  ];
  const badKids: unknown[] = [
    'sgk_01unknownunknownunknownunk', '../../../../dev/null', '/etc/passwd', "' OR '1'='1", "x'; DROP TABLE signing_keys; --",
    '', 'a'.repeat(5_000), '\u0000', 0, null, [ctx.kid], { kid: ctx.kid }, `${ctx.kid} `, ctx.kid.toUpperCase(),
  ];
  return fc.oneof(
    fc.constantFrom('none', 'None', 'NONE', 'nOnE', '', 'EdDSA ', 'eddsa', 'ES256', 'RS256', 'PS256', 'Ed25519').chain((alg) =>
      fc.constantFrom(`${json({ alg, kid: ctx.kid, typ: 'JWT' })}.${p}.`, `${json({ alg, kid: ctx.kid })}.${p}`, `${json({ alg })}.${p}.${s}`, eddsa(JSON.stringify({ alg, kid: ctx.kid }), JSON.stringify(claims), ctx.realKey)),
    ),
    fc.tuple(fc.constantFrom<'HS256' | 'HS384' | 'HS512'>('HS256', 'HS384', 'HS512'), fc.constantFrom(...publicSecrets)).map(([alg, secret]) => hmac(alg, { alg, kid: ctx.kid, typ: 'JWT' }, claimsWith(ctx, {}), secret)),
    fc.tuple(fc.constantFrom(...forbiddenFields), fc.boolean()).map(([extra, realSignature]) => {
      const header = JSON.stringify({ ...goodHeader(ctx), ...extra });
      if ('b64' in extra) return eddsa(header, JSON.stringify(claimsWith(ctx, {})), realSignature ? ctx.realKey : attacker.privateKey, false);
      return eddsa(header, JSON.stringify(claimsWith(ctx, {})), realSignature ? ctx.realKey : attacker.privateKey);
    }),
    fc.constantFrom(...badKids).map((kid) => eddsa(JSON.stringify({ alg: 'EdDSA', kid, typ: 'JWT' }), JSON.stringify(claimsWith(ctx, {})), attacker.privateKey)),
    // Duplicate keys: whichever one a parser keeps, this token is not ours (attacker-signed, or alg none last).
    fc.constantFrom(
      `{"alg":"EdDSA","kid":${JSON.stringify(ctx.kid)},"alg":"none"}`,
      `{"alg":"none","alg":"EdDSA","kid":${JSON.stringify(ctx.kid)}}`,
      `{"alg":"EdDSA","kid":"sgk_unknown","kid":${JSON.stringify(ctx.kid)}}`,
    ).map((header) => eddsa(header, JSON.stringify(claimsWith(ctx, {})), attacker.privateKey)),
    fc.constant(eddsa(`{"alg":"EdDSA","kid":${JSON.stringify(ctx.kid)},"alg":"none"}`, JSON.stringify(claimsWith(ctx, {})), ctx.realKey)),
  );
}

/** Structure tricks: wrong segment counts, non-JSON or non-base64url segments, tampered payloads and signatures. */
export function malformedToken(ctx: ForgeContext): fc.Arbitrary<string> {
  const { h, p, s, claims } = parts(ctx.token);
  const victim = 'usr_01m00000000000000000000000';
  return fc.oneof(
    fc.constantFrom(
      `${h}.${p}`, `${h}.${p}.${s}.`, `${h}.${p}.${s}.${s}`, `${h}.${p}.${s}.${s}.${s}`, `${h}..${s}`, `.${p}.${s}`, `${h}.${p}..`, '..', '....', '.',
      `${b64u('not json')}.${p}.${s}`, `${h}.${b64u('not json')}.${s}`, `${h}.${b64u('[1,2]')}.${s}`, `${h}.${b64u('null')}.${s}`, `${h}.${b64u('"x"')}.${s}`,
      // Not here: the signature with "==" appended, or its last character's two unused bits changed,
      // is the same signature (same bytes), and jose rightly accepts it.
      `${h}=.${p}.${s}`, `${h}.${p.replace(/-/g, '+')}+/.${s}`, `${h}.${p}.${s.replace(/./, '*')}`, `${h} .${p}.${s}`,
      `${json({ alg: 'RSA-OAEP', enc: 'A256GCM', kid: ctx.kid })}.${b64u('key')}.${b64u('iv')}.${p}.${b64u('tag')}`, // JWE-shaped, five parts
      `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`, `${h}.${p}.${s.slice(0, 20)}`, `${h}.${p}.${b64u(Buffer.alloc(64))}`, `${h}.${p}.`,
    ),
    // The real signature over a different payload.
    fc.constantFrom<Record<string, unknown>>({ sub: victim }, { scope: `${String(claims.scope)} admin` }, { exp: Number(claims.exp) + 86_400 }, { sid: 'ses_01m00000000000000000000000' }, { role: 'admin' })
      .map((change) => `${h}.${json({ ...claims, ...change })}.${s}`),
    fc.constant(`${h}.${b64u(`{"sub":"${victim}",${JSON.stringify(claims).slice(1)}`)}.${s}`),
    fc.nat({ max: ctx.token.length - 1 }).map((n) => ctx.token.slice(0, n)),
    fc.tuple(fc.nat({ max: ctx.token.length - 1 }), fc.constantFrom('A', '_', '-', '.', '=', ' ', '\t', 'é'))
      .map(([n, c]) => ctx.token.slice(0, n) + c + ctx.token.slice(n + 1))
      .filter((changed) => !sameToken(ctx.token, changed)),
  );
}

/**
 * Whether `b` still is token `a`: the same text, or a signature spelled differently in base64url
 * that decodes to the same bytes (its last character carries two unused bits). Not a forgery.
 */
function sameToken(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [a.split('.'), b.split('.')];
  return x.length === 3 && y.length === 3 && x[0] === y[0] && x[1] === y[1] && /^[A-Za-z0-9_-]+$/.test(y[2]!) && Buffer.from(x[2]!, 'base64url').equals(Buffer.from(y[2]!, 'base64url'));
}

/** Signed with the real key, so only the claim checks stand between them and a session. */
export function badClaimsToken(ctx: ForgeContext): fc.Arbitrary<string> {
  const now = ctx.nowS();
  return fc
    .constantFrom<Record<string, unknown>>(
      { nbf: now + 3_600 }, { iss: 'https://evil.example' }, { iss: undefined }, { aud: 'https://evil.example/v1' }, { aud: ['x'] }, { aud: `${ctx.audience}/` },
      { aud: undefined }, { sub: undefined }, { sub: 'usr_01m00000000000000000000000' }, { sub: 42 }, { sid: undefined }, { sid: 7 }, { scope: ['agents:read'] },
      { exp: undefined }, { exp: 'tomorrow' }, { iat: undefined }, { jti: undefined }, { exp: now + 10 ** 12, sub: 'usr_01m00000000000000000000000' },
    )
    .map((changes) => eddsa(JSON.stringify(goodHeader(ctx)), JSON.stringify(claimsWith(ctx, changes)), ctx.realKey));
}

/** A real-key token that expired well past the clock tolerance. */
export function expiredToken(ctx: ForgeContext, secondsAgo: number): string {
  const now = ctx.nowS();
  return eddsa(JSON.stringify(goodHeader(ctx)), JSON.stringify(claimsWith(ctx, { iat: now - secondsAgo - 900, exp: now - secondsAgo })), ctx.realKey);
}
