import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/kernel/ids.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/** GET /v1/users/me/export: everything the account holds, as one JSON download, with no secret in it. */
describe(`exporting the account (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t?.close());

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
    t.request({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) });

  it('holds the profile, organizations and roles, what the personal organization holds, sessions and the security log', async () => {
    const user = await t.signUp({ name: 'Ada' });
    const token = user.tokens.access_token;
    const stranger = await t.signUp();
    await call('POST', '/v1/agents', stranger.tokens.access_token, { name: 'Not mine', model: 'm' });

    const key = (await call('POST', '/v1/api-keys', token, { name: 'CI' })).json() as { id: string; key: string };
    const webhook = (await call('POST', '/v1/webhooks', token, { url: 'http://127.0.0.1:9/hook', events: ['*'] })).json() as { id: string; secret: string };
    const agent = (await call('POST', '/v1/agents', token, { name: 'Helper', model: 'gpt-4o' })).json() as { id: string };
    const chat = (await call('POST', '/v1/chats', token, { agent_id: agent.id, title: 'First' })).json() as { id: string };
    for (const content of ['one', 'two']) await call('POST', `/v1/chats/${chat.id}/messages`, token, { role: 'user', content });
    const emptyChat = (await call('POST', '/v1/chats', token, { agent_id: agent.id })).json() as { id: string };
    const team = (await call('POST', '/v1/organizations', token, { name: 'Research' })).json() as { id: string };
    await t.login(user.email, user.password);

    const res = await call('GET', '/v1/users/me/export', token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="gatehouse-export-${user.id}.json"`);
    for (const secret of [key.key, webhook.secret, user.password, 'password_hash', 'secret_hash']) expect(res.body).not.toContain(secret);
    expect(res.body).not.toContain('Not mine');

    const doc = res.json();
    expect(doc).toMatchObject({
      format: 'gatehouse.account-export', version: 1, exported_at: new Date(t.clock.now()).toISOString(),
      user: { id: user.id, email: user.email, name: 'Ada', email_verified: false, role: 'user', has_password: true },
      passkeys: [], identities: [],
    });
    expect(doc.organizations.map((o: { id: string; role: string; personal: boolean }) => [o.id, o.role, o.personal]))
      .toEqual([[await t.personalOrgId(user.id), 'owner', true], [team.id, 'owner', false]]);
    const held = doc.personal_organization;
    expect(held.id).toBe(await t.personalOrgId(user.id));
    expect(held.agents).toEqual([expect.objectContaining({ id: agent.id, name: 'Helper' })]);
    expect(held.chats.map((c: { id: string; messages: Array<{ content: string }> }) => [c.id, c.messages.map((m) => m.content)])).toEqual([[chat.id, ['one', 'two']], [emptyChat.id, []]]);
    expect(held.webhook_endpoints).toEqual([expect.objectContaining({ id: webhook.id, url: 'http://127.0.0.1:9/hook' })]);
    expect(held.api_keys).toEqual([expect.objectContaining({ id: key.id, name: 'CI', last_four: key.key.slice(-4) })]);
    expect(doc.sessions).toHaveLength(2);
    expect(doc.sessions[0]).toEqual({ id: expect.stringMatching(/^ses_/), created_at: expect.any(String), last_used_at: expect.any(String), expires_at: expect.any(String), revoked_at: null, ip: expect.any(String), user_agent: expect.any(String) });
    const types = doc.security_events.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('sign_in');
    expect(types.at(-1)).toBe('account_exported');
    expect(types).toContain('api_key_created');
  });

  it('pages through what it reads: every row, in order, across page boundaries', async () => {
    const user = await t.signUp();
    const token = user.tokens.access_token;
    const agent = (await call('POST', '/v1/agents', token, { name: 'Bot', model: 'm' })).json() as { id: string };
    const chat = (await call('POST', '/v1/chats', token, { agent_id: agent.id })).json() as { id: string };
    const orgId = await t.personalOrgId(user.id);
    const at = new Date(t.clock.now()).toISOString();
    const rows = Array.from({ length: 1_203 }, (_, i) => ({ id: newId('message'), chat_id: chat.id, org_id: orgId, role: 'user', content: `m${i}`, created_at: at }));
    for (let i = 0; i < rows.length; i += 200) await t.deps.database.db.insertInto('messages').values(rows.slice(i, i + 200)).execute();
    const events = Array.from({ length: 1_001 }, (_, i) => ({ id: newId('securityEvent'), user_id: user.id, type: 'sign_in_failed', ip: null, user_agent: null, detail: JSON.stringify({ n: i }), created_at: at }));
    for (let i = 0; i < events.length; i += 200) await t.deps.database.db.insertInto('security_events').values(events.slice(i, i + 200)).execute();

    const doc = (await call('GET', '/v1/users/me/export', token)).json();
    expect(doc.personal_organization.chats[0].messages.map((m: { content: string }) => m.content)).toEqual(rows.map((r) => r.content));
    const failures = doc.security_events.filter((e: { type: string }) => e.type === 'sign_in_failed');
    expect(failures.map((e: { detail: { n: number } }) => e.detail.n)).toEqual(events.map((_, i) => i));
  });

  it('allows 10 exports an hour, and no API key', async () => {
    const user = await t.signUp();
    const key = (await call('POST', '/v1/api-keys', user.tokens.access_token, { name: 'k' })).json().key as string;
    const byKey = await call('GET', '/v1/users/me/export', key);
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json().code).toBe('session_required');
    for (let i = 0; i < 10; i++) expect((await call('GET', '/v1/users/me/export', user.tokens.access_token)).statusCode).toBe(200);
    const limited = await call('GET', '/v1/users/me/export', user.tokens.access_token);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('too_many_attempts');
  });
});
