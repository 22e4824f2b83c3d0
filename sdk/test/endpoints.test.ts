/**
 * Every endpoint group through the SDK against a live `gatehouse serve` on loopback: the
 * methods send what the server expects and resolve to what it answers.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, createGatehouse, isGatehouseError, memoryTokenStore, paginate, type Agent } from '../src/index.js';
import { recordingFetch, rejection, signUp, type SignedIn } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;
let hooks: Server;
let hookUrl: string;
const received: { headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  // Loopback webhook receiver: the test delivery must reach it, signed.
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const address = hooks.address();
  hookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  // info: the log mailer writes reset and verification links there (no SMTP in tests).
  server = await startLiveServer({ WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', METRICS_TOKEN });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => hooks?.close(resolve));
});

describe('auth', () => {
  it('registers, logs in (storing the session), refreshes and logs out (clearing it)', async () => {
    const changes: unknown[] = [];
    const gh = createGatehouse({ baseUrl: server.base, onSessionChange: (s) => changes.push(s) });
    const email = uniqueEmail();
    const user = await gh.auth.register({ email, password: STRONG_PASSWORD, name: 'Ada' });
    expect(user).toMatchObject({ email, name: 'Ada' });
    expect(user.id).toMatch(/^usr_/);
    expect(await gh.session.get()).toBeNull();

    const tokens = await gh.auth.login({ username: email, password: STRONG_PASSWORD });
    expect(tokens.token_type).toBe('bearer');
    const stored = await gh.session.get();
    expect(stored).toMatchObject({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token, scope: tokens.scope });

    const refreshed = await gh.auth.refresh();
    expect(refreshed.refreshToken).not.toBe(tokens.refresh_token);
    expect((await gh.me.get()).email).toBe(email);

    await gh.auth.logout();
    expect(await gh.session.get()).toBeNull();
    expect(changes.map((c) => (c === null ? null : 'session'))).toEqual(['session', 'session', null]);
    // The server ended it too: the old access token no longer works.
    const res = await fetch(`${server.base}/v1/users/me`, { headers: { authorization: `Bearer ${refreshed.accessToken}` } });
    expect(res.status).toBe(401);
  });

  it('verifies the email with the mailed token, and resets a forgotten password', async () => {
    const { gh, email } = await signUp(server);
    await gh.me.resendVerification();
    await gh.auth.verifyEmail({ token: await server.mailedToken(email, 'verify-email') });
    expect((await gh.me.get()).email_verified).toBe(true);

    const anonymous = createGatehouse({ baseUrl: server.base });
    expect(await anonymous.auth.forgotPassword({ email })).toEqual({ message: expect.any(String) });
    const newPassword = 'Quiet-Harbor-Lantern-77';
    await anonymous.auth.resetPassword({ token: await server.mailedToken(email, 'reset-password'), password: newPassword });
    await anonymous.auth.login({ username: email, password: newPassword });
    expect((await anonymous.me.get()).email).toBe(email);

    const error = await rejection(anonymous.auth.resetPassword({ token: 'not-a-real-token', password: newPassword }));
    expect(isGatehouseError(error)).toBe(true);
  });
});

describe('account', () => {
  it('gets, updates, changes the password, lists security events and deletes the account', async () => {
    const { gh, email, password } = await signUp(server);
    const me = await gh.me.get();
    expect(me).toMatchObject({ email, tier: 'free', role: 'user', email_verified: false });

    expect(await gh.me.update({ name: 'Grace' })).toMatchObject({ name: 'Grace' });
    await gh.me.changePassword({ current_password: password, new_password: 'Silver-Falcon-Meadow-19' });
    // This session survives a password change (the others are signed out).
    expect((await gh.me.get()).name).toBe('Grace');

    const events = await gh.me.securityEvents({ limit: 10 });
    expect(events.data.map((e) => e.type)).toEqual(expect.arrayContaining(['sign_in', 'password_changed']));

    const stored = await gh.session.get();
    const { deletion_due_at } = await gh.me.delete({ password: 'Silver-Falcon-Meadow-19' });
    expect(Date.parse(deletion_due_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000); // the grace period (account-ops.test.ts)
    expect(await gh.session.get()).toBeNull();
    const res = await fetch(`${server.base}/v1/users/me`, { headers: { authorization: `Bearer ${stored!.accessToken}` } });
    expect(res.status).toBe(401);
  });
});

describe('sessions', () => {
  it('lists the sessions and revokes another one', async () => {
    const { gh, email, password } = await signUp(server);
    const other = createGatehouse({ baseUrl: server.base });
    await other.auth.login({ username: email, password });

    const { data } = await gh.sessions.list();
    expect(data).toHaveLength(2);
    const current = data.find((s) => s.current)!;
    const second = data.find((s) => !s.current)!;
    expect(current).toBeDefined();

    await gh.sessions.revoke(second.id);
    expect((await gh.sessions.list()).data.map((s) => s.id)).toEqual([current.id]);
    // The revoked client cannot refresh its way back in: its store is cleared.
    expect(await rejection(other.me.get())).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(await other.session.get()).toBeNull();
  });
});

describe('API keys and usage', () => {
  it('creates, lists, gets and revokes keys; a key client reads usage but cannot manage the account', async () => {
    const { gh } = await signUp(server);
    const created = await gh.apiKeys.create({ name: 'build server', scopes: ['agents:read', 'usage:read'] });
    expect(created.key).toMatch(/^gth_[A-Za-z0-9]{40}$/);
    expect((await gh.apiKeys.list()).data.map((k) => k.id)).toContain(created.id);
    expect(await gh.apiKeys.get(created.id)).toMatchObject({ id: created.id, name: 'build server', scopes: ['agents:read', 'usage:read'] });

    const bot = createGatehouse({ baseUrl: server.base, apiKey: created.key! });
    await bot.agents.list();
    const usage = await bot.usage.get();
    expect(usage).toMatchObject({ tier: 'free', limits: { per_minute: 100, per_day: 10000 } });
    expect(usage.minute.used).toBe(1); // the listing; reading the usage spends none
    expect(await rejection(bot.me.get())).toMatchObject({ code: 'session_required', status: 403 });
    expect(await rejection(bot.agents.create({ name: 'x', model: 'gpt-4o' }))).toMatchObject({ code: 'insufficient_scope', status: 403 });

    await gh.apiKeys.revoke(created.id);
    expect(await rejection(bot.usage.get())).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(await rejection(gh.apiKeys.get(created.id))).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('platform keys', () => {
  it("updates and rolls a key, reads its usage history, and a service verifies credentials with verifyCredential()", async () => {
    const admin = await signUp(server);
    const user = await signUp(server);
    const granted = await server.cli(['users', 'grant-admin', admin.email]);
    expect(granted.code, granted.output).toBe(0);
    // The role is read per request (cached accounts are told by the CLI through the database).
    let service;
    for (let i = 0; i < 100 && !service; i++) {
      service = await admin.gh.apiKeys.create({ name: 'runtime', scopes: ['credentials:verify'] }).catch(() => undefined);
      if (!service) await new Promise((r) => setTimeout(r, 100));
    }
    const verifier = createGatehouse({ baseUrl: server.base, apiKey: service!.key! });

    const key = await user.gh.apiKeys.create({ name: 'tool', scopes: ['agents:read', 'chats:read'], remaining: 5, rate_limit: { per_minute: 50 } });
    expect(key).toMatchObject({ remaining: 5, refill: null, rate_limit: { per_minute: 50, per_day: null } });
    const answer = await verifier.auth.verifyCredential(key.key!, { scopes: ['agents:read'] });
    expect(answer).toMatchObject({ valid: true, code: 'valid', user_id: user.userId, key_id: key.id, remaining: 4 });
    expect(await verifier.auth.verifyCredential(key.key!, { scopes: ['agents:write'] })).toMatchObject({ valid: false, code: 'insufficient_scope' });
    expect(await verifier.auth.verifyCredential('gth_junk')).toMatchObject({ valid: false, code: 'not_found' });

    const renamed = await user.gh.apiKeys.update(key.id, { name: 'tool v2', scopes: ['agents:read'] });
    expect(renamed).toMatchObject({ name: 'tool v2', scopes: ['agents:read'] });
    const rolled = await user.gh.apiKeys.roll(key.id, { grace_seconds: 60 });
    expect(rolled.key).not.toBe(key.key);
    expect(rolled.previous_key_expires_at).not.toBeNull();
    expect(await verifier.auth.verifyCredential(key.key!, { count: false })).toMatchObject({ valid: true, key_id: key.id });
    // A refused scope spent nothing: one use gone.
    expect(await verifier.auth.verifyCredential(rolled.key!, { count: false })).toMatchObject({ valid: true, key_id: key.id, remaining: 4 });
    const noGrace = await user.gh.apiKeys.roll(key.id);
    expect(noGrace.previous_key_expires_at).toBeNull();
    expect(await verifier.auth.verifyCredential(rolled.key!)).toMatchObject({ valid: false });

    const bot = createGatehouse({ baseUrl: server.base, apiKey: noGrace.key! });
    await bot.agents.list();
    const history = await user.gh.usage.history({ key_id: key.id, granularity: 'hour' });
    expect(history).toMatchObject({ granularity: 'hour', key_id: key.id });
    const sum = (outcome: 'ok' | 'forbidden') => history.data.reduce((total, bucket) => total + bucket[outcome], 0);
    // The counted verification and the listing; the verification for a scope the key lacks.
    expect(sum('ok')).toBe(2);
    expect(sum('forbidden')).toBe(1);
  });
});

describe('admin', () => {
  it('lists users by email and changes a tier (admin role granted with the CLI)', async () => {
    const admin = await signUp(server);
    const target = await signUp(server);
    expect(await rejection(admin.gh.admin.listUsers())).toMatchObject({ code: 'forbidden', status: 403 });

    const granted = await server.cli(['users', 'grant-admin', admin.email]);
    expect(granted.code, granted.output).toBe(0);
    // The role is read per request (cached accounts are told by the CLI through the database).
    let found;
    for (let i = 0; i < 100 && !found; i++) {
      found = await admin.gh.admin.listUsers({ email: target.email }).catch(() => undefined);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found?.data.map((u) => u.id)).toEqual([target.userId]);

    const updated = await admin.gh.admin.updateUser(target.userId, { tier: 'pro' });
    expect(updated).toMatchObject({ id: target.userId, tier: 'pro', limits: { per_minute: 1000 } });
    expect((await target.gh.me.get()).tier).toBe('pro');
  });
});

describe('agents', () => {
  let me: SignedIn;
  beforeAll(async () => {
    me = await signUp(server);
  });

  it('creates, gets, updates, lists and deletes agents', async () => {
    const agent = await me.gh.agents.create({ name: 'Support bot', model: 'gpt-4o', instructions: 'Be kind.', metadata: { team: 'care' } });
    expect(agent).toMatchObject({ name: 'Support bot', model: 'gpt-4o', metadata: { team: 'care' } });
    expect(await me.gh.agents.get(agent.id)).toEqual(agent);
    expect(await me.gh.agents.update(agent.id, { description: 'Answers tickets' })).toMatchObject({ id: agent.id, description: 'Answers tickets' });
    expect((await me.gh.agents.list()).data.map((a) => a.id)).toContain(agent.id);
    await me.gh.agents.delete(agent.id);
    expect(await rejection(me.gh.agents.get(agent.id))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('sends one Idempotency-Key per creating call, and a given key replays the first answer', async () => {
    const recorder = recordingFetch();
    const gh = createGatehouse({ baseUrl: server.base, tokenStore: me.store, fetch: recorder.fetch });
    await gh.agents.create({ name: 'auto key', model: 'gpt-4o' });
    const sent = recorder.calls.find((c) => c.method === 'POST' && c.path === '/v1/agents')!;
    expect(sent.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);

    const first = await gh.agents.create({ name: 'once', model: 'gpt-4o' }, { idempotencyKey: 'create-once' });
    const replay = await gh.agents.create({ name: 'once', model: 'gpt-4o' }, { idempotencyKey: 'create-once' });
    expect(replay).toEqual(first);
    expect(await rejection(gh.agents.create({ name: 'other', model: 'gpt-4o' }, { idempotencyKey: 'create-once' }))).toMatchObject({
      code: 'idempotency_key_reused',
      status: 422,
    });
  });

  it('pages through every agent with paginate() and collect()', async () => {
    const { gh } = await signUp(server);
    const made: Agent[] = [];
    for (let i = 0; i < 7; i++) made.push(await gh.agents.create({ name: `agent ${i}`, model: 'gpt-4o' }));
    const recorder = recordingFetch();
    // A second client on a copy of the session, to count the pages it fetches.
    const paged = createGatehouse({ baseUrl: server.base, tokenStore: memoryTokenStore(await gh.session.get()), fetch: recorder.fetch });
    const seen: string[] = [];
    for await (const agent of paginate((cursor) => paged.agents.list({ cursor, limit: 3 }))) seen.push(agent.id);
    expect(seen).toEqual(made.map((a) => a.id).reverse());
    expect(recorder.count('GET', '/v1/agents')).toBe(3);

    const all = await collect((cursor) => gh.agents.list({ cursor, limit: 100 }));
    expect(all).toHaveLength(7);
    // Breaking out stops fetching.
    let pages = 0;
    for await (const _ of paginate((cursor) => (pages++, gh.agents.list({ cursor, limit: 2 })))) break;
    expect(pages).toBe(1);
  });
});

describe('chats and messages', () => {
  it('creates chats for an agent, posts and lists messages, filters and deletes', async () => {
    const { gh } = await signUp(server);
    const agent = await gh.agents.create({ name: 'Chatty', model: 'gpt-4o' });
    const other = await gh.agents.create({ name: 'Quiet', model: 'gpt-4o' });
    const chat = await gh.chats.create({ agent_id: agent.id, title: 'Hello' });
    await gh.chats.create({ agent_id: other.id });
    expect(chat).toMatchObject({ agent_id: agent.id, title: 'Hello' });
    expect(await gh.chats.get(chat.id)).toEqual(chat);
    expect((await gh.chats.list({ agent_id: agent.id })).data.map((c) => c.id)).toEqual([chat.id]);
    expect((await gh.chats.list()).data).toHaveLength(2);

    const question = await gh.chats.messages.create(chat.id, { role: 'user', content: 'Hi there' });
    const answer = await gh.chats.messages.create(chat.id, { role: 'assistant', content: 'Hello! ☕' });
    expect(question).toMatchObject({ chat_id: chat.id, role: 'user', content: 'Hi there' });
    expect((await gh.chats.messages.list(chat.id)).data.map((m) => m.id)).toEqual([answer.id, question.id]);

    await gh.chats.delete(chat.id);
    expect(await rejection(gh.chats.messages.list(chat.id))).toMatchObject({ code: 'not_found' });
  });
});

describe('webhooks', () => {
  it('creates, gets, updates, tests (delivered to a loopback receiver), lists deliveries and deletes', async () => {
    const { gh } = await signUp(server);
    const endpoint = await gh.webhooks.create({ url: hookUrl, events: ['agent.*'], description: 'CI' });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ url: hookUrl, events: ['agent.*'], enabled: true });
    const { secret: _secret, ...visible } = endpoint;
    expect(await gh.webhooks.get(endpoint.id)).toEqual(visible);
    expect((await gh.webhooks.list()).data.map((w) => w.id)).toEqual([endpoint.id]);
    expect(await gh.webhooks.update(endpoint.id, { events: ['agent.created', 'chat.*'] })).toMatchObject({ events: ['agent.created', 'chat.*'] });

    const delivery = await gh.webhooks.test(endpoint.id);
    expect(delivery).toMatchObject({ endpoint_id: endpoint.id, event_type: 'webhook.test' });
    let delivered;
    for (let i = 0; i < 100 && !delivered; i++) {
      delivered = (await gh.webhooks.deliveries(endpoint.id, { status: 'delivered' })).data.find((d) => d.id === delivery.id);
      if (!delivered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(delivered).toMatchObject({ status: 'delivered', last_status_code: 204 });
    const hit = received.find((r) => r.body.includes('"webhook.test"'));
    expect(hit?.headers['webhook-signature']).toMatch(/^v1,/);

    await gh.webhooks.delete(endpoint.id);
    expect(await rejection(gh.webhooks.get(endpoint.id))).toMatchObject({ code: 'not_found' });
  });
});

/** /metrics is served on the public port only to the bearer of the server's METRICS_TOKEN. */
const METRICS_TOKEN = 'sdk-test-metrics-token-0123456789abcdef';

describe('service endpoints', () => {
  it('reads JWKS, health, readiness and metrics without a credential', async () => {
    const gh = createGatehouse({ baseUrl: `${server.base}/v1` });
    expect((await gh.system.jwks()).keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(await gh.system.health()).toEqual({ status: 'ok' });
    expect(await gh.system.ready()).toMatchObject({ status: 'ok' });
    expect(await gh.system.metrics({ headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).toContain('# TYPE');
    expect(await rejection(gh.system.metrics())).toMatchObject({ code: 'authentication_required' });
  });
});
