/**
 * The account operations through the SDK against a live `gatehouse serve`: signing out
 * everywhere else, changing the sign-in email from the mailed link, exporting the account, and
 * deleting it with a grace period that a sign-in ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatehouse, type AccountExport } from '../src/index.js';
import { rejection, signUp } from './helpers.js';
import { startLiveServer, uniqueEmail, type LiveServer } from './live-server.js';

let server: LiveServer;

beforeAll(async () => {
  // info: the log mailer writes the links there (no SMTP in tests).
  server = await startLiveServer({ LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await server?.stop();
});

describe('auth.logout scopes', () => {
  it("{ scope: 'others' } ends the other sessions and keeps this one (and its store)", async () => {
    const here = await signUp(server);
    const there = createGatehouse({ baseUrl: server.base });
    await there.auth.login({ username: here.email, password: here.password });

    await here.gh.auth.logout({ scope: 'others' });
    expect(await here.gh.session.get()).not.toBeNull();
    expect((await here.gh.me.get()).email).toBe(here.email);
    // The other client's access token is refused, and so is its refresh: it ends signed out.
    expect(await rejection(there.me.get())).toMatchObject({ status: 401 });
    expect(await there.session.get()).toBeNull();
    const events = await here.gh.me.securityEvents({ limit: 1 });
    expect(events.data[0]).toMatchObject({ type: 'sessions_revoked', detail: { scope: 'others', count: 1 } });
  });

  it("logout() and { scope: 'all' } clear the store", async () => {
    const { gh, email, password } = await signUp(server);
    const other = createGatehouse({ baseUrl: server.base });
    await other.auth.login({ username: email, password });
    await gh.auth.logout({ scope: 'all' });
    expect(await gh.session.get()).toBeNull();
    expect(await rejection(other.me.get())).toMatchObject({ status: 401 });

    await gh.auth.login({ username: email, password });
    await gh.auth.logout();
    expect(await gh.session.get()).toBeNull();
  });
});

describe('me.changeEmail', () => {
  it('changes the sign-in address only once the link mailed to the new one is followed, by the owner signed in', async () => {
    const { gh, email, password } = await signUp(server);
    const next = uniqueEmail();
    expect(await gh.me.changeEmail({ email: next, password })).toEqual({ pending_email: next });
    const anonymous = createGatehouse({ baseUrl: server.base });
    expect(await rejection(anonymous.auth.login({ username: next, password }))).toMatchObject({ code: 'invalid_credentials' });

    // The link alone (whoever reads a mistyped address's inbox) does nothing, and is not spent;
    // the owner's client sends its session with it.
    const token = await server.mailedToken(next, 'verify-email');
    expect(await rejection(anonymous.auth.verifyEmail({ token }))).toMatchObject({ status: 401, code: 'authentication_required' });
    const stranger = (await signUp(server)).gh;
    expect(await rejection(stranger.auth.verifyEmail({ token }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await gh.me.get()).toMatchObject({ email });
    await gh.auth.verifyEmail({ token });
    expect(await gh.me.get()).toMatchObject({ email: next, email_verified: true });
    await anonymous.auth.login({ username: next, password });
    expect(await rejection(createGatehouse({ baseUrl: server.base }).auth.login({ username: email, password }))).toMatchObject({ code: 'invalid_credentials' });

    const taken = await signUp(server);
    expect(await rejection(gh.me.changeEmail({ email: taken.email, password }))).toMatchObject({ status: 409, code: 'email_taken' });
  });
});

describe('me.export', () => {
  it('resolves to the whole account as one document', async () => {
    const { gh, email, userId } = await signUp(server);
    const agent = await gh.agents.create({ name: 'Exported', model: 'gpt-4o' });
    const chat = await gh.chats.create({ agent_id: agent.id });
    await gh.chats.messages.create(chat.id, { role: 'user', content: 'kept' });
    const doc: AccountExport = await gh.me.export();
    expect(doc).toMatchObject({ format: 'gatehouse.account-export', version: 1, user: { id: userId, email } });
    expect(doc.personal_organization.agents.map((a) => a.name)).toEqual(['Exported']);
    expect(doc.personal_organization.chats[0]!.messages.map((m) => m.content)).toEqual(['kept']);
  });
});

describe('me.delete', () => {
  it('resolves to deletion_due_at, kills the keys at once, and a sign-in during the grace restores the account', async () => {
    const { gh, email, password } = await signUp(server);
    const { key } = await gh.apiKeys.create({ name: 'doomed' });
    const program = createGatehouse({ baseUrl: server.base, apiKey: key! }); // shown once, at creation
    expect((await program.agents.list()).data).toEqual([]);

    const { deletion_due_at } = await gh.me.delete({ password });
    expect(Date.parse(deletion_due_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(await gh.session.get()).toBeNull();
    expect(await rejection(program.agents.list())).toMatchObject({ status: 401 });

    await gh.auth.login({ username: email, password });
    expect((await gh.me.get()).email).toBe(email);
    expect((await gh.me.securityEvents({ limit: 2 })).data.map((e) => e.type)).toEqual(['sign_in', 'account_restored']);
    expect(await rejection(program.agents.list())).toMatchObject({ status: 401 });
  });
});
