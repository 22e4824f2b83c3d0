import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../free-port.js';
import { createTestApp, dialect, type TestApp } from '../harness.js';

/**
 * Another service verifying Gatehouse's access tokens the standard way, over real HTTP: an OpenID
 * client library discovers the issuer's metadata, jose fetches the keys from its jwks_uri and
 * checks signature, issuer and audience.
 */
describe(`OpenID discovery (${dialect})`, () => {
  let t: TestApp;
  let issuer: string;
  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { PUBLIC_URL: issuer } });
    await t.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('lets openid-client discover the issuer and jose verify its tokens through jwks_uri', async () => {
    // Loopback is plain HTTP; a deployment's PUBLIC_URL is https and needs no such allowance.
    const config = await client.discovery(new URL(issuer), 'a-service', undefined, undefined, { execute: [client.allowInsecureRequests] });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['EdDSA']);

    const { tokens } = await t.signUp();
    const keys = createRemoteJWKSet(new URL(metadata.jwks_uri!));
    const audience = metadata.access_token_audience as string;
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, keys, { issuer: metadata.issuer, audience, algorithms: metadata.id_token_signing_alg_values_supported as string[], currentDate: new Date(t.clock.now()) });
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(payload).toMatchObject({ iss: issuer, aud: `${issuer}/v1`, amr: ['pwd'] });

    // A token for another audience, or from another issuer, does not pass the same check.
    await expect(jwtVerify(tokens.access_token, keys, { issuer, audience: 'https://other.example', currentDate: new Date(t.clock.now()) })).rejects.toThrow(/aud/);
    await expect(jwtVerify(tokens.access_token, keys, { issuer: 'https://evil.example', audience, currentDate: new Date(t.clock.now()) })).rejects.toThrow(/iss/);
  });
});
