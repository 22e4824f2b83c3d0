import { createHmac, createPublicKey, generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createVerifier } from 'fast-jwt';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

const ISSUER = 'http://gatehouse.test';
const AUDIENCE = 'http://gatehouse.test/v1';
const USER_SCOPES = 'agents:read agents:write chats:read chats:write webhooks:read webhooks:write usage:read';

interface Jwk extends JsonWebKey {
  kid: string;
}

function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  const part = token.split('.')[index];
  if (part === undefined) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function fetchJwks(t: TestApp, url = '/v1/.well-known/jwks.json'): Promise<Jwk[]> {
  const res = await t.request({ method: 'GET', url });
  expect(res.statusCode).toBe(200);
  return (res.json() as { keys: Jwk[] }).keys;
}

function pemOf(jwk: Jwk): string {
  return createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }).toString();
}

function me(t: TestApp, token: string) {
  return t.request({ method: 'GET', url: '/v1/users/me', headers: bearer(token) });
}

/** 401 problem+json with a Bearer challenge; RFC 6750 error="invalid_token" whenever a credential was sent. */
function expectUnauthorized(res: LightMyRequestResponse, code: 'authentication_required' | 'invalid_token' | 'token_expired') {
  expect(res.statusCode, res.body).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status: 401, code });
  const challenge = String(res.headers['www-authenticate'] ?? '');
  expect(challenge).toMatch(/^Bearer\b/);
  if (code === 'authentication_required') expect(challenge).not.toContain('error=');
  else expect(challenge).toContain('error="invalid_token"');
}

/** The claims a real login would carry, for a real user and session; tests change one thing at a time. */
interface Forge {
  sub: string;
  sid: string;
  kid: string;
  privateKey: KeyObject;
  now: () => number;
}

function forge(f: Forge, over: { aud?: string; iss?: string; kid?: string; key?: KeyObject; header?: Record<string, unknown>; iat?: number } = {}) {
  const iat = over.iat ?? Math.floor(f.now() / 1000);
  return new SignJWT({ sid: f.sid, scope: USER_SCOPES })
    .setProtectedHeader({ alg: 'EdDSA', kid: over.kid ?? f.kid, typ: 'JWT', ...over.header })
    .setIssuer(over.iss ?? ISSUER)
    .setAudience(over.aud ?? AUDIENCE)
    .setSubject(f.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 900)
    .setJti(randomUUID())
    .sign(over.key ?? f.privateKey);
}

function hs256(header: Record<string, unknown>, payload: Record<string, unknown>, secret: string | Buffer): string {
  const input = `${b64urlJson(header)}.${b64urlJson(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

describe(`access tokens (${dialect})`, () => {
  let t: TestApp;
  let user: Awaited<ReturnType<TestApp['signUp']>>;
  let f: Forge;

  beforeAll(async () => {
    t = await createTestApp();
    user = await t.signUp();
    const payload = decodePart(user.tokens.access_token, 1);
    const current = t.deps.keyRing.current();
    f = { sub: user.id, sid: String(payload.sid), kid: current.kid, privateKey: current.privateKey, now: () => t.clock.now() };
  });
  afterAll(() => t.close());

  it('publishes the same Ed25519 public keys at /v1/.well-known/jwks.json and /.well-known/jwks.json', async () => {
    const v1 = await fetchJwks(t);
    const root = await fetchJwks(t, '/.well-known/jwks.json');
    expect(root).toEqual(v1);
    expect(v1).toHaveLength(1);
    expect(v1[0]).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: f.kid, alg: 'EdDSA', use: 'sig' });
    expect(JSON.stringify(v1)).not.toContain('"d"');
  });

  it('issues access tokens an independent library (fast-jwt) verifies against the published JWKS', async () => {
    const loginAt = Math.floor(t.clock.now() / 1000);
    const tokens = await t.login(user.email, user.password);
    const [jwk] = await fetchJwks(t);
    const verify = createVerifier({
      key: pemOf(jwk!),
      algorithms: ['EdDSA'],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      complete: true,
      clockTimestamp: t.clock.now(),
    });
    const { header, payload } = verify(tokens.access_token) as { header: Record<string, unknown>; payload: Record<string, unknown> };
    expect(header).toMatchObject({ alg: 'EdDSA', kid: jwk!.kid });
    expect(payload).toEqual({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: user.id,
      sid: expect.stringMatching(/^ses_[0-9a-hjkmnp-tv-z]{26}$/),
      scope: USER_SCOPES,
      amr: ['pwd'],
      iat: loginAt,
      exp: loginAt + 900,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(tokens.scope).toBe(USER_SCOPES);
    expect(tokens.expires_in).toBe(900);

    // sid names the session of this very login.
    const sessions = await t.request({ method: 'GET', url: '/v1/sessions', headers: bearer(tokens.access_token) });
    const current = (sessions.json().data as { id: string; current: boolean }[]).find((s) => s.current);
    expect(current?.id).toBe(payload.sid);

    // Control: the same verifier refuses the token against some other Ed25519 key.
    const otherKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const verifyOther = createVerifier({ key: otherKey, algorithms: ['EdDSA'], clockTimestamp: t.clock.now() });
    expect(() => verifyOther(tokens.access_token)).toThrow();
  });

  it('accepts a correctly forged token signed by the real key (control for the refusals below)', async () => {
    const res = await me(t, await forge(f));
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(user.id);
  });

  it('answers 401 authentication_required without an Authorization header', async () => {
    expectUnauthorized(await t.request({ method: 'GET', url: '/v1/users/me' }), 'authentication_required');
  });

  it('refuses other schemes and garbage credentials with invalid_token', async () => {
    const garbage = ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer not-a-jwt', 'Bearer a.b.c', 'Bearer ...', 'Bearer eyJhbGciOiJFZERTQSJ9', `Bearer ${'x'.repeat(5000)}`, 'Bearer gth_nope', `Token ${user.tokens.access_token}`];
    for (const authorization of garbage) {
      const res = await t.request({ method: 'GET', url: '/v1/users/me', headers: { authorization } });
      expectUnauthorized(res, 'invalid_token');
    }
  });

  it('refuses a token whose payload was changed but whose signature was kept', async () => {
    const other = await t.signUp();
    const [h, , s] = user.tokens.access_token.split('.');
    const payload = decodePart(user.tokens.access_token, 1);
    const tampered = `${h}.${b64urlJson({ ...payload, sub: other.id })}.${s}`;
    expectUnauthorized(await me(t, tampered), 'invalid_token');
    const longer = `${h}.${b64urlJson({ ...payload, exp: Number(payload.exp) + 86_400 })}.${s}`;
    expectUnauthorized(await me(t, longer), 'invalid_token');
    // The untouched token still works.
    expect((await me(t, user.tokens.access_token)).statusCode).toBe(200);
  });

  it('refuses a token with a changed signature', async () => {
    const [h, p, s] = user.tokens.access_token.split('.');
    const sig = Buffer.from(s!, 'base64url');
    sig[10] = sig[10]! ^ 0x01;
    expectUnauthorized(await me(t, `${h}.${p}.${sig.toString('base64url')}`), 'invalid_token');
    expectUnauthorized(await me(t, `${h}.${p}.`), 'invalid_token');
  });

  it('refuses alg "none"', async () => {
    const payload = decodePart(user.tokens.access_token, 1);
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${b64urlJson({ alg, kid: f.kid, typ: 'JWT' })}.${b64urlJson(payload)}.`;
      expectUnauthorized(await me(t, token), 'invalid_token');
    }
  });

  it('refuses HS256 tokens, including ones keyed with the public key (algorithm confusion)', async () => {
    const payload = decodePart(user.tokens.access_token, 1);
    const header = { alg: 'HS256', kid: f.kid, typ: 'JWT' };
    const [jwk] = await fetchJwks(t);
    const secrets: (string | Buffer)[] = [
      pemOf(jwk!),
      createPublicKey({ key: jwk!, format: 'jwk' }).export({ format: 'der', type: 'spki' }),
      Buffer.from(jwk!.x!, 'base64url'),
      jwk!.x!,
      JSON.stringify(jwk),
      randomBytes(32),
    ];
    for (const secret of secrets) expectUnauthorized(await me(t, hs256(header, payload, secret)), 'invalid_token');
  });

  it('refuses a token signed by the real key for another audience or issuer', async () => {
    expectUnauthorized(await me(t, await forge(f, { aud: 'http://evil.test/v1' })), 'invalid_token');
    expectUnauthorized(await me(t, await forge(f, { aud: ISSUER })), 'invalid_token');
    expectUnauthorized(await me(t, await forge(f, { iss: 'http://evil.test' })), 'invalid_token');
  });

  it('refuses an unknown kid, and the real kid on a token signed by another key', async () => {
    expectUnauthorized(await me(t, await forge(f, { kid: newId('signingKey') })), 'invalid_token');
    const attacker = generateKeyPairSync('ed25519');
    expectUnauthorized(await me(t, await forge(f, { key: attacker.privateKey })), 'invalid_token');
  });

  it('refuses tokens whose header names its own key (jwk, jku, x5u)', async () => {
    const attacker = generateKeyPairSync('ed25519');
    const attackerJwk = attacker.publicKey.export({ format: 'jwk' });
    // Signed by the real key: the header field alone must be enough to refuse.
    expectUnauthorized(await me(t, await forge(f, { header: { jwk: attackerJwk } })), 'invalid_token');
    expectUnauthorized(await me(t, await forge(f, { header: { jku: 'http://evil.test/jwks.json' } })), 'invalid_token');
    expectUnauthorized(await me(t, await forge(f, { header: { x5u: 'http://evil.test/cert.pem' } })), 'invalid_token');
    // Signed by the attacker's key that the header points at.
    expectUnauthorized(await me(t, await forge(f, { key: attacker.privateKey, header: { jwk: attackerJwk } })), 'invalid_token');
  });

  it('protects GET /v1/agents and answers an empty list with a credential', async () => {
    expectUnauthorized(await t.request({ method: 'GET', url: '/v1/agents' }), 'authentication_required');
    expectUnauthorized(await t.request({ method: 'GET', url: '/v1/agents', headers: bearer('garbage') }), 'invalid_token');
    const res = await t.request({ method: 'GET', url: '/v1/agents', headers: bearer(user.tokens.access_token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [], next_cursor: null });
  });
});

describe(`access token expiry (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps a token valid for its lifetime and answers token_expired after it', async () => {
    const { tokens } = await t.signUp();
    expect((await me(t, tokens.access_token)).statusCode).toBe(200); // also puts it in the verification cache
    t.clock.advance(890_000);
    expect((await me(t, tokens.access_token)).statusCode).toBe(200);
    t.clock.advance(20_000); // 910 s: past exp (900 s) and the 5 s tolerance
    expectUnauthorized(await me(t, tokens.access_token), 'token_expired');

    // A token never seen before (not cached) expires the same way.
    const { tokens: fresh } = await t.signUp();
    t.clock.advance(910_000);
    expectUnauthorized(await me(t, fresh.access_token), 'token_expired');
  });
});

describe(`signing key rotation (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('publishes old and new keys, keeps old tokens valid and signs new ones with the new key', async () => {
    const user = await t.signUp();
    const oldKid = decodePart(user.tokens.access_token, 0).kid;
    expect((await fetchJwks(t)).map((k) => k.kid)).toEqual([oldKid]);

    const newKid = await t.deps.keyRing.rotate();
    expect(newKid).not.toBe(oldKid);
    const keys = await fetchJwks(t);
    expect(keys).toHaveLength(2);
    expect(keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
    expect(await fetchJwks(t, '/.well-known/jwks.json')).toEqual(keys);

    expect((await me(t, user.tokens.access_token)).statusCode).toBe(200);

    const next = await t.login(user.email, user.password);
    const header = decodePart(next.access_token, 0);
    expect(header.kid).toBe(newKid);
    const newJwk = keys.find((k) => k.kid === newKid)!;
    const verify = createVerifier({ key: pemOf(newJwk), algorithms: ['EdDSA'], allowedIss: ISSUER, allowedAud: AUDIENCE, clockTimestamp: t.clock.now() });
    expect((verify(next.access_token) as { sub: string }).sub).toBe(user.id);
    expect((await me(t, next.access_token)).statusCode).toBe(200);

    // Once every token of the retired key has expired, the key leaves the JWKS.
    t.clock.advance(900_000 + 61_000);
    expect((await fetchJwks(t)).map((k) => k.kid)).toEqual([newKid]);
  });
});
