import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { openSse, type SseConnection } from '../sse-client.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

/**
 * What a stream's replay may reach back to (issue 31): never past the numbers given, never a
 * deleted chat's messages, never what happened before the reader joined, never another
 * person's account events.
 */
describe(`stream history (${dialect})`, () => {
  let t: TestApp;
  let base: string;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  const open: SseConnection[] = [];
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await t.close();
    await inbox.close();
  });

  interface Person { id: string; email: string; token: string }
  const person = async (): Promise<Person> => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    return { id: user.id, email: user.email, token: user.tokens.access_token };
  };
  async function stream(path: string, token: string, headers: Record<string, string> = {}): Promise<SseConnection> {
    const connection = await openSse(`${base}${path}`, { ...bearer(token), ...headers });
    open.push(connection);
    return connection;
  }
  const call = async (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) => {
    const res = await t.request({ method, url, headers: { ...bearer(token), ...headers }, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  const mailsTo = new Map<string, number>();
  /** `who` joins `orgId` with `role`, invited by its owner `by`, by the mailed link. */
  const join = async (by: Person, orgId: string, who: Person, role: string) => {
    const invited = await call(by.token, 'POST', `/v1/organizations/${orgId}/invitations`, { email: who.email, role });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const count = (mailsTo.get(who.email) ?? 0) + 1;
    mailsTo.set(who.email, count);
    const mail = await inbox.waitFor(who.email, /invited to join/, count);
    const accepted = await call(who.token, 'POST', '/v1/invitations/accept', { token: tokenFromMail(mail, 'accept-invitation') });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  };

  it('answers a Last-Event-ID beyond the last event number: nothing replayed, then live with the live ids', async () => {
    const owner = await person();
    const agent = (await call(owner.token, 'POST', '/v1/agents', { name: 'Bot', model: 'm' })).body;
    const sse = await stream('/v1/events/stream', owner.token, { 'last-event-id': '999999' });
    expect(sse.status).toBe(200);
    await call(owner.token, 'POST', '/v1/chats', { agent_id: agent.id });
    const created = await sse.next((e) => e.event === 'chat.created', 3_000);
    expect(Number(created.id)).toBe(2);
    expect(sse.events.map((e) => e.event)).toEqual(['chat.created']);
  });

  const team = async (owner: Person) => (await call(owner.token, 'POST', '/v1/organizations', { name: 'Acme' })).body.id as string;
  const inOrg = (orgId: string) => ({ 'gatehouse-organization': orgId });

  it("takes a deleted chat's events out of every replay: a member reading from 0 sees only that it was deleted", async () => {
    const owner = await person();
    const orgId = await team(owner);
    const agent = (await call(owner.token, 'POST', '/v1/agents', { name: 'Bot', model: 'm' }, inOrg(orgId))).body;
    const chat = (await call(owner.token, 'POST', '/v1/chats', { agent_id: agent.id }, inOrg(orgId))).body;
    await call(owner.token, 'POST', `/v1/chats/${chat.id}/messages`, { role: 'user', content: 'the secret plan' }, inOrg(orgId));
    // A second chat, deleted with its agent: its events go too.
    const other = (await call(owner.token, 'POST', '/v1/agents', { name: 'Other', model: 'm' }, inOrg(orgId))).body;
    const otherChat = (await call(owner.token, 'POST', '/v1/chats', { agent_id: other.id }, inOrg(orgId))).body;
    await call(owner.token, 'POST', `/v1/chats/${otherChat.id}/messages`, { role: 'user', content: 'another secret' }, inOrg(orgId));
    expect((await call(owner.token, 'DELETE', `/v1/chats/${chat.id}`, undefined, inOrg(orgId))).status).toBe(204);
    expect((await call(owner.token, 'DELETE', `/v1/agents/${other.id}`, undefined, inOrg(orgId))).status).toBe(204);

    const sse = await stream('/v1/events/stream', owner.token, { 'last-event-id': '0', ...inOrg(orgId) });
    await sse.next((e) => e.event === 'agent.deleted');
    expect(sse.events.map((e) => e.event)).toEqual(['agent.created', 'agent.created', 'chat.deleted', 'agent.deleted']);
    expect(JSON.stringify(sse.events)).not.toMatch(/secret/);
  });

  it('replays nothing from before the reader joined the organization', async () => {
    const owner = await person();
    const viewer = await person();
    const orgId = await team(owner);
    await call(owner.token, 'POST', '/v1/agents', { name: 'Before', model: 'm' }, inOrg(orgId));
    t.clock.advance(1_000);
    await join(owner, orgId, viewer, 'viewer');
    t.clock.advance(1_000);
    await call(owner.token, 'POST', '/v1/agents', { name: 'After', model: 'm' }, inOrg(orgId));

    const sse = await stream('/v1/events/stream?types=agent.*', viewer.token, { 'last-event-id': '0', ...inOrg(orgId) });
    await sse.next((e) => e.event === 'agent.created');
    await call(owner.token, 'POST', '/v1/agents', { name: 'Live', model: 'm' }, inOrg(orgId));
    await sse.next((e) => e.data.data?.name === 'Live');
    expect(sse.events.map((e) => e.data.data?.name)).toEqual(['After', 'Live']);
  });

  it("refuses invitations to a personal organization (409 conflict, naming a team instead), and an older one's acceptance", async () => {
    const owner = await person();
    const friend = await person();
    const personal = await t.personalOrgId(owner.id);
    const refused = await call(owner.token, 'POST', `/v1/organizations/${personal}/invitations`, { email: friend.email, role: 'viewer' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/team/) });
    // One made before personal organizations refused members cannot be accepted either.
    const teamId = await team(owner);
    const invited = await call(owner.token, 'POST', `/v1/organizations/${teamId}/invitations`, { email: friend.email, role: 'viewer' });
    expect(invited.status).toBe(201);
    const mail = await inbox.waitFor(friend.email, /invited to join/, 1);
    await t.deps.database.db.updateTable('invitations').set({ org_id: personal }).where('id', '=', invited.body.id).execute();
    const accepted = await call(friend.token, 'POST', '/v1/invitations/accept', { token: tokenFromMail(mail, 'accept-invitation') });
    expect(accepted.status).toBe(409);
    expect(accepted.body).toMatchObject({ code: 'conflict' });
  });

  it("sends a person's account events to that person only, not to a member of their personal organization from before", async () => {
    const owner = await person();
    const viewer = await person();
    const personal = await t.personalOrgId(owner.id);
    // A membership made while personal organizations still took members.
    await t.deps.database.db.insertInto('memberships').values({ org_id: personal, user_id: viewer.id, role: 'viewer', created_at: new Date(t.clock.now()).toISOString() }).execute();
    t.clock.advance(1_000);
    const watching = await stream('/v1/events/stream', viewer.token, inOrg(personal));
    const own = await stream('/v1/events/stream', owner.token);
    expect(watching.status).toBe(200);
    expect((await call(owner.token, 'PATCH', '/v1/users/me', { name: 'Renamed' })).status).toBe(200);
    await call(owner.token, 'POST', '/v1/agents', { name: 'Bot', model: 'm' });
    await own.next((e) => e.event === 'agent.created');
    await watching.next((e) => e.event === 'agent.created');
    expect(own.events.map((e) => e.event)).toEqual(['user.updated', 'agent.created']);
    expect(watching.events.map((e) => e.event)).toEqual(['agent.created']);
    // Nor on replay.
    const replayed = await stream('/v1/events/stream', viewer.token, { 'last-event-id': '0', ...inOrg(personal) });
    await replayed.next((e) => e.event === 'agent.created');
    expect(replayed.events.map((e) => e.event)).toEqual(['agent.created']);
  });
});
