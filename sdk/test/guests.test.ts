/**
 * Guest accounts through the SDK against a live `gatehouse serve` (ANONYMOUS_SIGN_IN=true):
 * auth.signInAnonymously stores a guest's session, the guest works in its personal organization,
 * is refused API keys with guest_not_allowed, and me.upgrade keeps its id, agents and session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse } from '../src/index.js';
import { rejection } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;
let off: LiveServer;

beforeAll(async () => {
  // info: the log mailer writes the verification mail there (no SMTP in these tests).
  [server, off] = await Promise.all([startLiveServer({ LOG_LEVEL: 'info', ANONYMOUS_SIGN_IN: 'true' }), startLiveServer()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), off?.stop()]);
});

const amrOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).amr as string[];

describe('auth.signInAnonymously / me.upgrade', () => {
  it('is refused with not_found while the server does not offer guests, and stores nothing', async () => {
    const gh = createGatehouse({ baseUrl: off.base });
    expect(await rejection(gh.auth.signInAnonymously())).toMatchObject({ status: 404, code: 'not_found' });
    expect(await gh.session.get()).toBeNull();
  });

  it('signs a guest in, which works in its organization but gets no API key until it upgrades in place', async () => {
    const gh = createGatehouse({ baseUrl: server.base });
    const tokens = await gh.auth.signInAnonymously();
    expect(amrOf(tokens.access_token)).toEqual(['anonymous']);
    expect(await gh.session.get()).not.toBeNull();
    const guest = await gh.me.get();
    expect(guest).toMatchObject({ email: null, is_anonymous: true, tier: 'free' });

    const agent = await gh.agents.create({ name: 'Made as a guest', model: 'gpt-4o' });
    expect(await rejection(gh.apiKeys.create({ name: 'k', scopes: ['agents:read'] }))).toMatchObject({ status: 403, code: 'guest_not_allowed' });

    const email = uniqueEmail();
    const upgraded = await gh.me.upgrade({ email, password: STRONG_PASSWORD, name: 'Ada' });
    expect(upgraded).toMatchObject({ id: guest.id, email, name: 'Ada', is_anonymous: false, email_verified: false, has_password: true });
    // The same session goes on, now allowed what a guest is not; the agent is still there.
    expect((await gh.apiKeys.create({ name: 'k', scopes: ['agents:read'] })).key).toMatch(/^gth_/);
    expect((await gh.agents.list()).data.map((a) => a.id)).toContain(agent.id);
    // The address is confirmed by mail, as after a registration; then the password signs in.
    await gh.auth.verifyEmail({ token: await server.mailedToken(email, 'verify-email') });
    const again = createGatehouse({ baseUrl: server.base });
    await again.auth.login({ username: email, password: STRONG_PASSWORD });
    expect(await again.me.get()).toMatchObject({ id: guest.id, email_verified: true, is_anonymous: false });
    // No second upgrade.
    expect(await rejection(gh.me.upgrade({ email: uniqueEmail() }))).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('refuses an address that has an account with email_taken, and the guest stays one', async () => {
    const owner = createGatehouse({ baseUrl: server.base });
    const email = uniqueEmail();
    await owner.auth.register({ email, password: STRONG_PASSWORD, name: 'Owner' });
    const gh = createGatehouse({ baseUrl: server.base });
    await gh.auth.signInAnonymously();
    expect(await rejection(gh.me.upgrade({ email }))).toMatchObject({ status: 409, code: 'email_taken' });
    expect(await gh.me.get()).toMatchObject({ is_anonymous: true, email: null });
  });
});
