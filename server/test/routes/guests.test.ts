/**
 * Guest accounts (ANONYMOUS_SIGN_IN): one click to a working account without an address, the
 * routes a guest is refused (one route property, RoutePolicy.guests), the upgrade that keeps the
 * id and the data (its address confirmed through a real SMTP inbox), and the purge of idle guests.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

describe(`guest accounts (${dialect})`, () => {
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  let t: TestApp;
  let ip = 0;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, ANONYMOUS_SIGN_IN: 'true', GUEST_RETENTION_DAYS: '30' } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  const nextIp = () => `10.7.0.${++ip}`;
  async function guest(from = nextIp()) {
    const res = await t.request({ method: 'POST', url: '/v1/auth/anonymous', remoteAddress: from });
    expect(res.statusCode, res.body).toBe(200);
    const tokens = res.json();
    return { tokens, auth: bearer(tokens.access_token), id: decodeJwt(tokens.access_token).sub! };
  }
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
    t.request({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  it('is off unless ANONYMOUS_SIGN_IN, and makes a guest with no address that says amr anonymous', async () => {
    const off = await createTestApp();
    try {
      expect((await off.request({ method: 'POST', url: '/v1/auth/anonymous' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
    const { tokens, auth } = await guest();
    expect(decodeJwt(tokens.access_token).amr).toEqual(['anonymous']);
    const me = (await call('GET', '/v1/users/me', auth)).json();
    expect(me).toMatchObject({ email: null, is_anonymous: true, email_verified: false, has_password: false, tier: 'free' });
    // An ordinary account says it is none.
    const someone = await t.signUp();
    expect((await call('GET', '/v1/users/me', bearer(someone.tokens.access_token))).json().is_anonymous).toBe(false);
  });

  it('uses the platform in its personal organization, and is refused a lasting credential, a team or a webhook', async () => {
    const { auth } = await guest();
    const agent = await call('POST', '/v1/agents', auth, { name: 'Guest agent', model: 'gpt-test' });
    expect(agent.statusCode, agent.body).toBe(201);
    expect((await call('POST', '/v1/chats', auth, { agent_id: agent.json().id })).statusCode).toBe(201);
    const refused = [
      ['POST', '/v1/api-keys', { name: 'k', scopes: ['agents:read'] }],
      ['POST', '/v1/organizations', { name: 'Team' }],
      ['POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['agent.created'] }],
      ['POST', '/v1/oauth-apps', { name: 'App', redirect_uris: ['https://example.com/cb'] }],
      ['POST', '/v1/users/me/passkeys/options', {}],
      ['POST', '/v1/users/me/email', { email: uniqueEmail() }],
    ] as const;
    for (const [method, url, body] of refused) {
      const res = await call(method, url, auth, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
      expect(res.json().code, url).toBe('guest_not_allowed');
    }
    // Reading is fine.
    expect((await call('GET', '/v1/webhooks', auth)).statusCode).toBe(200);
    expect((await call('POST', '/v1/users/me/email/verification', auth, {})).statusCode).toBe(409);
  });

  it('upgrades in place: same id, its data, the address confirmed by mail, then signs in with the password', async () => {
    const { auth, id } = await guest();
    const agent = (await call('POST', '/v1/agents', auth, { name: 'Kept agent', model: 'gpt-test' })).json();
    const email = uniqueEmail();
    const upgraded = await call('POST', '/v1/users/me/upgrade', auth, { email, password: STRONG_PASSWORD, name: 'Ada Upgraded' });
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    expect(upgraded.json()).toMatchObject({ id, email, is_anonymous: false, email_verified: false, has_password: true, name: 'Ada Upgraded' });
    // The same session goes on, and may now do what a guest may not.
    expect((await call('POST', '/v1/organizations', auth, { name: 'Now a team' })).statusCode).toBe(201);

    const mail = await inbox.waitFor(email, /Confirm your email/);
    expect((await t.request({ method: 'POST', url: '/v1/auth/email/verify', payload: { token: tokenFromMail(mail, 'verify-email') } })).statusCode).toBe(204);
    const tokens = await t.login(email, STRONG_PASSWORD);
    expect(decodeJwt(tokens.access_token).sub).toBe(id);
    const agents = (await call('GET', '/v1/agents', bearer(tokens.access_token))).json();
    expect(agents.data.map((a: { id: string }) => a.id)).toContain(agent.id);
    // No second upgrade.
    expect((await call('POST', '/v1/users/me/upgrade', bearer(tokens.access_token), { email: uniqueEmail() })).json().code).toBe('conflict');
  });

  it("refuses an address that has an account, a weak password, and an upgrade by anyone but a guest's session", async () => {
    const { auth } = await guest();
    const owner = await t.signUp();
    const taken = await call('POST', '/v1/users/me/upgrade', auth, { email: owner.email.toUpperCase() });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('email_taken');
    expect((await call('POST', '/v1/users/me/upgrade', auth, { email: uniqueEmail(), password: 'password123' })).statusCode).toBe(400);
    expect((await call('GET', '/v1/users/me', auth)).json().is_anonymous).toBe(true);
    expect((await t.request({ method: 'POST', url: '/v1/users/me/upgrade', payload: { email: uniqueEmail() } })).statusCode).toBe(401);
    // Without a password the upgraded account signs in by an email code.
    const email = uniqueEmail();
    expect((await call('POST', '/v1/users/me/upgrade', auth, { email })).json()).toMatchObject({ email, has_password: false });
  });

  it('trims the name and refuses a blank one, as a registration does', async () => {
    const { auth } = await guest();
    const blank = await call('POST', '/v1/users/me/upgrade', auth, { email: uniqueEmail(), name: '   ' });
    expect(blank.statusCode, blank.body).toBe(400);
    expect(blank.json().code).toBe('validation_failed');
    expect((await call('GET', '/v1/users/me', auth)).json().is_anonymous).toBe(true);
    expect((await call('POST', '/v1/users/me/upgrade', auth, { email: uniqueEmail(), name: '  Ada  ' })).json()).toMatchObject({ name: 'Ada', is_anonymous: false });
  });

  it('limits failed upgrades per IP (email_taken says whether an address has an account), and a success costs nothing', async () => {
    const from = nextIp();
    const owner = await t.signUp();
    // Guests made elsewhere, all asking from one address.
    const guests = await Promise.all(Array.from({ length: 3 }, () => guest()));
    const upgrade = (auth: Record<string, string>, email: string) => t.request({ method: 'POST', url: '/v1/users/me/upgrade', headers: auth, payload: { email }, remoteAddress: from });
    expect((await upgrade(guests[0]!.auth, uniqueEmail())).statusCode).toBe(200);
    for (let i = 0; i < 30; i++) expect((await upgrade(guests[1]!.auth, owner.email)).json().code).toBe('email_taken');
    const over = await upgrade(guests[2]!.auth, owner.email);
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('too_many_attempts');
    // Another address still upgrades.
    const elsewhere = await t.request({ method: 'POST', url: '/v1/users/me/upgrade', headers: guests[2]!.auth, payload: { email: uniqueEmail() }, remoteAddress: nextIp() });
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
  });

  it('limits guests per IP', async () => {
    const from = nextIp();
    for (let i = 0; i < 30; i++) expect((await t.request({ method: 'POST', url: '/v1/auth/anonymous', remoteAddress: from })).statusCode).toBe(200);
    const over = await t.request({ method: 'POST', url: '/v1/auth/anonymous', remoteAddress: from });
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('too_many_attempts');
  });

  it('purges guests unused for GUEST_RETENTION_DAYS with their data, and keeps a used one and an upgraded one', async () => {
    const idle = await guest();
    await call('POST', '/v1/agents', idle.auth, { name: 'Left behind', model: 'gpt-test' });
    const used = await guest();
    const upgraded = await guest();
    await call('POST', '/v1/users/me/upgrade', upgraded.auth, { email: uniqueEmail() });

    t.clock.advance(29 * 86_400_000);
    // A refresh on day 29 is a use.
    expect((await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: used.tokens.refresh_token } })).statusCode).toBe(200);
    t.clock.advance(2 * 86_400_000);
    expect(await t.deps.accountPurge.purgeIdleGuests()).toBeGreaterThanOrEqual(1);

    const db = t.deps.database.db;
    const exists = async (id: string) => (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    expect(await exists(idle.id)).toBe(false);
    expect(await db.selectFrom('agents').select('id').where('name', '=', 'Left behind').executeTakeFirst()).toBeUndefined();
    expect(await exists(used.id)).toBe(true);
    expect(await exists(upgraded.id)).toBe(true);
  });
});
