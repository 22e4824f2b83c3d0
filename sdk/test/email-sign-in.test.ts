/**
 * Signing in by mail through the SDK against a live `gatehouse serve`: the code, the link, and
 * the second factor's step after either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, isGatehouseError, mfaChallengeOf } from '../src/index.js';
import { rejection } from './helpers.js';
import { startLiveServer, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;

beforeAll(async () => {
  // info: the log mailer writes the mails there (no SMTP in these tests).
  server = await startLiveServer({ LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await server?.stop();
});

const amrOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).amr as string[];

describe('auth.startEmailSignIn / verifyEmailSignIn', () => {
  it('signs a new address in with the typed code and stores the session', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const email = uniqueEmail();
    expect(await gh.auth.startEmailSignIn({ email })).toMatchObject({ message: expect.any(String) });
    const tokens = await gh.auth.verifyEmailSignIn({ email, code: await server.mailedCode(email) });
    expect(amrOf(tokens.access_token)).toEqual(['email_code']);
    expect(await gh.session.get()).not.toBeNull();
    expect(await gh.me.get()).toMatchObject({ email, email_verified: true });
  });

  it("signs in with the link's token, once", async () => {
    const email = uniqueEmail();
    await createGatehouse({ baseUrl: server.base }).auth.startEmailSignIn({ email });
    const token = await server.mailedToken(email, 'sign-in');
    const gh = createGatehouse({ baseUrl: server.base });
    expect(amrOf((await gh.auth.verifyEmailSignIn({ token })).access_token)).toEqual(['email_link']);
    const again = await rejection(createGatehouse({ baseUrl: server.base }).auth.verifyEmailSignIn({ token }));
    expect(again).toMatchObject({ status: 401, code: 'invalid_token' });
  });

  it('rejects a wrong code as invalid_credentials and stores nothing', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const email = uniqueEmail();
    await gh.auth.startEmailSignIn({ email });
    const code = await server.mailedCode(email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const error = await rejection(gh.auth.verifyEmailSignIn({ email, code: wrong }));
    expect(isGatehouseError(error) && error.code).toBe('invalid_credentials');
    expect(mfaChallengeOf(error)).toBeNull();
    expect(await gh.session.get()).toBeNull();
  });
});
