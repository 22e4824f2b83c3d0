import fc from 'fast-check';
import type { KeyObject } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { accessTokenAudience } from '../../src/identity/tokens/access-tokens.js';
import { bearer, dialect } from '../harness.js';
import { acceptedAuthorization, refusedAuthorization, type CredentialContext } from './credential-values.js';
import { fuzzParameters } from './fuzz-settings.js';
import { createFuzzWorld, WORLD_ADDRESS } from './fuzz-world.js';
import { expiredToken } from './jwt-forgery.js';
import { isDocumented, openApiDocument, operationsOf, type Operation } from './openapi-operations.js';
import { problemViolations, SlowestRequests } from './response-oracle.js';
import { send as sendRequest } from './send.js';

/**
 * Property 2: whatever an Authorization header holds — junk, wrong schemes, truncated or
 * oversized credentials, API keys with bad checksums, JWTs with every header and claim trick
 * (alg none, HS256 keyed with the public key, embedded jwk/jku/x5u, hostile kids, crit and b64,
 * duplicate keys, tampered payloads, expired or not yet valid, wrong iss/aud, JWE shapes) — a
 * protected operation answers 401 invalid_token / authentication_required / token_expired, with
 * WWW-Authenticate. Valid credentials, spelled any RFC-equivalent way, still pass (control).
 */
const AUTH_CODES = ['invalid_token', 'authentication_required', 'token_expired'];
const world = await createFuzzWorld();
const { t } = world;
const operations = operationsOf(openApiDocument(t.app)).filter((o) => o.requiresCredential);
const slowest = new SlowestRequests(5);

async function credentialContext(): Promise<CredentialContext> {
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, token = world.accessToken()) =>
    t.request({ method, url, headers: bearer(token), remoteAddress: WORLD_ADDRESS, ...(payload ? { payload } : {}) });
  const jwks = (await t.request({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys;
  const { kid, privateKey } = t.deps.keyRing.current() as { kid: string; privateKey: KeyObject };
  const revoked = (await call('POST', '/v1/api-keys', { name: 'to revoke' })).json();
  expect((await call('DELETE', `/v1/api-keys/${revoked.id}`)).statusCode).toBe(204);
  const expiring = (await call('POST', '/v1/api-keys', { name: 'to expire', expires_at: new Date(t.clock.now() + 30_000).toISOString() })).json();
  const other = (await t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: WORLD_ADDRESS, payload: { username: (await call('GET', '/v1/users/me')).json().email, password: 'Vivid-Otter-Quarry-42' } })).json();
  expect((await call('POST', '/v1/auth/logout', undefined, other.access_token)).statusCode).toBe(204);
  t.clock.advance(60_000); // the expiring key is now past its expires_at; access tokens live 15 min
  await world.repair();
  return {
    token: world.accessToken(), kid, publicJwk: jwks.find((k: { kid: string }) => k.kid === kid), realKey: privateKey, issuer: t.config.publicUrl,
    audience: accessTokenAudience(t.config.publicUrl), nowS: () => Math.floor(t.clock.now() / 1000),
    apiKey: world.apiKey(), revokedApiKey: revoked.key, expiredApiKey: expiring.key, revokedToken: other.access_token,
  };
}
const ctx = await credentialContext();

afterAll(async () => {
  console.log(slowest.report(`authorization fuzz (${dialect})`));
  await world.close();
});

function send(op: Operation, authorization: string | undefined) {
  const ids = world.liveIds();
  const url = op.path.replace(/\{[^}]+\}/g, (_, offset: number) => ids[op.path.slice(0, offset).split('/').at(-2) ?? ''] ?? 'x');
  // A valid credential opens the live streams (GET …/stream): sendRequest reads no further than their start.
  return sendRequest(t, { method: op.method as 'GET', url, headers: authorization === undefined ? {} : { authorization } });
}

describe(`the Authorization header under attack (${dialect})`, () => {
  it('refuses every forged, malformed or dead credential with 401 on every protected operation', async () => {
    expect(operations.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations.map((o) => o.key)), refusedAuthorization(ctx), async (key, authorization) => {
        const op = operations.find((o) => o.key === key)!;
        const started = performance.now();
        const res = await send(op, authorization);
        slowest.note(performance.now() - started, `${res.statusCode} ${op.key}`);
        const problems = problemViolations(res);
        if (res.statusCode !== 401) problems.unshift(`answered ${res.statusCode}, not 401`);
        else if (!AUTH_CODES.includes(res.json().code)) problems.push(`code ${res.json().code} is not one of ${AUTH_CODES.join(', ')}`);
        if (!/^Bearer\b/.test(String(res.headers['www-authenticate']))) problems.push('no WWW-Authenticate: Bearer challenge');
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  ${op.key} with Authorization: ${JSON.stringify(authorization)?.slice(0, 300)}\n  answer: ${res.body.slice(0, 300)}`);
      }),
      fuzzParameters(10),
    );
  });

  it('lets valid credentials through however the scheme is spelled (the control case)', async () => {
    const reads = operations.filter((o) => o.method === 'GET');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...reads.map((o) => o.key)), acceptedAuthorization(ctx), async (key, authorization) => {
        const op = reads.find((o) => o.key === key)!;
        const res = await send(op, authorization);
        expect(res.statusCode, `${op.key} with ${authorization.slice(0, 20)}…: ${res.body.slice(0, 200)}`).not.toBe(401);
        expect(res.statusCode).toBeLessThan(500);
        expect(isDocumented(op, res.statusCode), `${res.statusCode} undocumented for ${op.key}`).toBe(true);
      }),
      fuzzParameters(),
    );
  });

  it('says token_expired for an expired token signed with the real key, and not before the tolerance', async () => {
    const op = operations.find((o) => o.key === 'GET /v1/usage')!;
    const expired = await send(op, `Bearer ${expiredToken(ctx, 60)}`);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('token_expired');
    // One second past exp is inside the 5 s clock tolerance: the same construction must pass, so the case above fails for the right reason.
    expect((await send(op, `Bearer ${expiredToken(ctx, 1)}`)).statusCode).toBe(200);
  });
});
