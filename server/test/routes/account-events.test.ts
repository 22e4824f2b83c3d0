import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';

/** Account-level events reach the outbox, and the deliveries of a `*` endpoint. */
describe(`account events in the outbox (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  /** The events of the user's personal organization, where account-level events of the user go. */
  const eventsOf = async (userId: string) =>
    (await t.deps.database.db.selectFrom('events').select(['id', 'type', 'data']).where('org_id', '=', await t.personalOrgId(userId)).orderBy('id').execute())
      .map((e) => ({ id: e.id, type: e.type, data: JSON.parse(e.data) as Record<string, unknown> }));

  it('records api_key.*, user.updated, session.revoked and security.refresh_token_reused, each with a delivery for *', async () => {
    const user = await t.signUp();
    const auth = bearer(user.tokens.access_token);
    const hook = await t.request({ method: 'POST', url: '/v1/webhooks', headers: auth, payload: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } });
    expect(hook.statusCode).toBe(201);

    const key = (await t.request({ method: 'POST', url: '/v1/api-keys', headers: auth, payload: { name: 'ci' } })).json();
    await t.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, headers: auth });
    await t.request({ method: 'PATCH', url: '/v1/users/me', headers: auth, payload: { name: 'Renamed' } });
    const second = await t.login(user.email, user.password);
    const sessions = (await t.request({ method: 'GET', url: '/v1/sessions', headers: auth })).json().data as Array<{ id: string; current: boolean }>;
    const other = sessions.find((s) => !s.current)!.id;
    await t.request({ method: 'DELETE', url: `/v1/sessions/${other}`, headers: auth });
    // Refresh-token theft: the rotated token comes back after the grace window.
    const third = await t.login(user.email, user.password);
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: third.refresh_token } });
    t.clock.advance(11_000);
    await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: third.refresh_token } });
    expect(second.access_token).toBeDefined();

    const events = await eventsOf(user.id);
    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType('api_key.created')[0]!.data).toMatchObject({ id: key.id, name: 'ci', prefix: key.prefix });
    expect(JSON.stringify(byType('api_key.created'))).not.toContain(key.key);
    expect(byType('api_key.revoked')[0]!.data).toEqual({ id: key.id, ids: [key.id] });
    expect(byType('user.updated')[0]!.data).toMatchObject({ id: user.id, name: 'Renamed' });
    expect(byType('session.revoked').find((e) => e.data.id === other)!.data).toEqual({ id: other, ids: [other], reason: 'revoked' });
    expect(byType('security.refresh_token_reused')).toHaveLength(1);
    expect(byType('session.revoked').find((e) => e.data.reason === 'refresh_token_reused')).toBeDefined();

    const deliveries = await t.deps.database.db.selectFrom('deliveries').select('event_id').where('endpoint_id', '=', hook.json().id).execute();
    const delivered = new Set(deliveries.map((d) => d.event_id));
    for (const e of events) expect(delivered.has(e.id), e.type).toBe(true);
  });

  it('writes one event for a revoke-all, naming every session it ended', async () => {
    const user = await t.signUp();
    const auth = bearer(user.tokens.access_token);
    const others = [await t.login(user.email, user.password), await t.login(user.email, user.password), await t.login(user.email, user.password)];
    const changed = await t.request({ method: 'POST', url: '/v1/users/me/password', headers: auth, payload: { current_password: user.password, new_password: 'Another-Long-Passphrase-31' } });
    expect(changed.statusCode).toBe(204);
    const revoked = (await eventsOf(user.id)).filter((e) => e.type === 'session.revoked');
    expect(revoked).toHaveLength(1);
    expect(revoked[0]!.data.reason).toBe('password_changed');
    expect(revoked[0]!.data.id).toBeUndefined();
    const sid = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
    expect([...(revoked[0]!.data.ids as string[])].sort()).toEqual(others.map((o) => sid(o.access_token)).sort());
  });
});
