/**
 * auth.signInWithIdToken against a live server, with a real ID token from an OpenID issuer on
 * loopback standing in for Apple's or Google's native sheet.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, createSignInNonce } from '../src/index.js';
import { nativeIdToken, nativeTestClient, sha256Hex } from '../../server/test/native-id-token.js';
import { startTestIssuer, type TestIssuer } from '../../server/test/oidc-issuer.js';
import { rejection } from './helpers.js';
import { startLiveServer, type LiveServer, uniqueEmail } from './live-server.js';

const APP = { clientId: 'com.example.sdk', clientSecret: 'the native sheet at the test issuer', redirectUri: 'com.example.sdk:/oauth' };
let issuer: TestIssuer;
let server: LiveServer;
beforeAll(async () => {
  issuer = await startTestIssuer([nativeTestClient(APP)], { claimsInIdToken: true });
  server = await startLiveServer({ OIDC_PROVIDERS: JSON.stringify([{ id: 'apple', type: 'apple', issuer: issuer.url, native_client_ids: [APP.clientId] }]) });
});
afterAll(async () => {
  await server?.stop();
  await issuer?.close();
});

describe('auth.signInWithIdToken', () => {
  it("signs in with the sheet's token and the raw nonce, and stores the session", async () => {
    const id = `sdk-native-${randomBytes(4).toString('hex')}`;
    const email = uniqueEmail();
    issuer.accounts.set(id, { id, email, email_verified: true });
    // Apple's way: the sheet gets the hash, Gatehouse the nonce.
    const { nonce, hashedNonce } = createSignInNonce();
    expect(hashedNonce).toBe(sha256Hex(nonce));
    expect(nonce).toMatch(/^[0-9a-f]{64}$/);
    const idToken = await nativeIdToken(issuer.url, APP, id, hashedNonce);

    const gh = createGatehouse({ baseUrl: server.base });
    expect((await gh.auth.providers()).data).toEqual([{ id: 'apple', name: 'Apple', type: 'apple', web: false, native: true }]);
    await gh.auth.signInWithIdToken({ provider: 'apple', id_token: idToken, nonce, name: 'Ada Native' });
    expect(await gh.session.get()).not.toBeNull();
    expect(await gh.me.get()).toMatchObject({ email, email_verified: true, name: 'Ada Native' });

    const other = createGatehouse({ baseUrl: server.base });
    expect(await rejection(other.auth.signInWithIdToken({ provider: 'apple', id_token: idToken, nonce: 'not it' }))).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(await other.session.get()).toBeNull();
  });
});
