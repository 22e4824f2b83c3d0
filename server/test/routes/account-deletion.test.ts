import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/kernel/db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '../../src/kernel/bus.js';
import { sha256Hex } from '../../src/kernel/opaque-tokens.js';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';
import { SoftAuthenticator } from '../soft-authenticator.js';

const DAY = 86_400_000;

/**
 * DELETE /v1/users/me with the grace period (ACCOUNT_DELETION_GRACE_DAYS, 30 by default): the
 * credentials die at once, a sign-in meanwhile restores the account, the sweep purges it after.
 */
describe(`deleting an account with a grace period (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  const bus: BusMessage[] = [];
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url } });
    t.deps.bus.subscribe((m) => bus.push(m));
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: Record<string, unknown>) =>
    t.request({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload }) });
  const deleteMe = (token: string, payload?: Record<string, unknown>) => call('DELETE', '/v1/users/me', token, payload);
  const login = (username: string, password: string) => t.request({ method: 'POST', url: '/v1/auth/login', payload: { username, password } });
  const count = async (table: 'agents' | 'chats' | 'api_keys' | 'organizations', column: 'org_id' | 'id', value: string) =>
    Number((await t.deps.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);
  const messages = async (chatId: string) =>
    Number((await t.deps.database.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('chat_id', '=', chatId).executeTakeFirstOrThrow()).n);
  const dueAt = async (userId: string) => (await t.deps.database.db.selectFrom('users').select('deletion_due_at').where('id', '=', userId).executeTakeFirst())?.deletion_due_at;

  /** Sessions of this database waiting for a lock (PostgreSQL): how the race tests know where each side stands. */
  const waitingOnLocks = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(t.deps.database.db)).rows[0]!.n);
  /** Takes a lock in a transaction of its own and keeps it until the returned function is called (it resolves once that transaction has ended). */
  const holdLock = async (lock: (trx: Kysely<Database>) => Promise<unknown>): Promise<() => Promise<void>> => {
    let release!: () => void;
    let locked!: () => void;
    const taken = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.deps.database.db.transaction().execute(async (trx) => {
      await lock(trx);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await Promise.race([taken, holder]);
    return async () => {
      release();
      await holder;
    };
  };
  const until = async (what: string, done: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 10_000; !(await done());) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  /** An account holding an agent, a chat with a message and an API key, signed in twice. */
  async function populated() {
    const user = await t.signUp();
    const token = user.tokens.access_token;
    const other = await t.login(user.email, user.password);
    const created = (await call('POST', '/v1/api-keys', token, { name: 'doomed' })).json() as { id: string; key: string };
    const agent = (await call('POST', '/v1/agents', created.key, { name: 'Bot', model: 'gpt-4o' })).json() as { id: string };
    const chat = (await call('POST', '/v1/chats', created.key, { agent_id: agent.id })).json() as { id: string };
    expect((await call('POST', `/v1/chats/${chat.id}/messages`, created.key, { role: 'user', content: 'hello' })).statusCode).toBe(201);
    return { ...user, token, other, key: created.key, keyId: created.id, chatId: chat.id, orgId: await t.personalOrgId(user.id) };
  }

  it('a deleted account cannot log in (after the grace), its keys fail at once, and its data is gone after the grace', async () => {
    const user = await populated();
    expect((await call('GET', '/v1/agents', user.key)).statusCode).toBe(200);
    const wrong = await deleteMe(user.token, { password: 'Wrong-Password-123' });
    expect(wrong.statusCode).toBe(400);
    expect((await call('GET', '/v1/agents', user.key)).statusCode).toBe(200);

    bus.length = 0;
    const res = await deleteMe(user.token, { password: user.password });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ deletion_due_at: new Date(t.clock.now() + 30 * DAY).toISOString() });

    // At once: the key, both sessions' access and refresh tokens, on every instance (the bus).
    expect((await call('GET', '/v1/agents', user.key)).statusCode).toBe(401);
    for (const token of [user.token, user.other.access_token]) expect((await call('GET', '/v1/users/me', token)).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: user.other.refresh_token } })).statusCode).toBe(401);
    expect(bus).toContainEqual({ type: 'api-keys-revoked', hashes: [sha256Hex(user.key)] });
    expect(bus.find((m) => m.type === 'sessions-revoked')).toMatchObject({ ids: expect.arrayContaining([expect.stringMatching(/^ses_/)]) });
    await inbox.waitFor(user.email, /scheduled for deletion/);

    // A key that escaped the revocation (one created at the same moment on another instance,
    // played here by un-revoking it in the database) is still refused while the deletion stands.
    await t.deps.database.db.updateTable('api_keys').set({ revoked_at: null }).where('id', '=', user.keyId).execute();
    t.clock.advance(10 * 60_000); // past the key cache's memory of the revocation, as an instance that never saw it
    const escaped = await call('GET', '/v1/agents', user.key);
    expect(escaped.statusCode).toBe(401);
    expect(escaped.json().detail).toContain('scheduled for deletion');

    // During the grace the data stays, and the address stays taken.
    expect([await count('agents', 'org_id', user.orgId), await count('chats', 'org_id', user.orgId), await messages(user.chatId)]).toEqual([1, 1, 1]);
    const again = await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: user.email, password: user.password, name: 'Squatter' } });
    expect(again.json().code).toBe('email_taken');

    // Past the grace: refused before the sweep runs, gone after it.
    t.clock.advance(30 * DAY + 1_000);
    expect((await login(user.email, user.password)).json().code).toBe('invalid_credentials');
    expect(await t.deps.accountPurge.purgeOnce()).toBeGreaterThanOrEqual(1);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    expect(await dueAt(user.id)).toBeUndefined();
    expect([await count('agents', 'org_id', user.orgId), await count('chats', 'org_id', user.orgId), await messages(user.chatId),
      await count('api_keys', 'org_id', user.orgId), await count('organizations', 'id', user.orgId)]).toEqual([0, 0, 0, 0, 0]);
    // Now the address is free again.
    expect((await t.request({ method: 'POST', url: '/v1/auth/register', payload: { email: user.email, password: user.password, name: 'New' } })).statusCode).toBe(201);
  });

  it('a sign-in during the grace restores the account; the revoked keys stay revoked', async () => {
    const user = await populated();
    expect((await deleteMe(user.token, { password: user.password })).statusCode).toBe(202);
    t.clock.advance(29 * DAY);
    const back = await login(user.email, user.password);
    expect(back.statusCode, back.body).toBe(200);
    expect(await dueAt(user.id)).toBeNull();
    expect((await call('GET', '/v1/agents', user.key)).statusCode).toBe(401);
    const token = back.json().access_token as string;
    expect((await call('GET', '/v1/agents', token)).json().data).toHaveLength(1);
    const log = (await call('GET', '/v1/users/me/security-events', token)).json().data as Array<{ type: string; detail: Record<string, unknown> }>;
    expect(log.map((e) => e.type).slice(0, 3)).toEqual(['sign_in', 'account_restored', 'account_deletion_scheduled']);
    expect(log[2]!.detail).toMatchObject({ sessions_revoked: 2, api_keys_revoked: 1 });
    await inbox.waitFor(user.email, /account was restored/);

    t.clock.advance(2 * DAY);
    await t.deps.accountPurge.purgeOnce();
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    expect(await count('agents', 'org_id', user.orgId)).toBe(1);
  });

  it('refuses (409 last_owner, nothing revoked) while the last owner of a team with other members; the sweep calls off the deletion of one that became so', async () => {
    const owner = await populated();
    const member = await t.signUp();
    const team = (await call('POST', '/v1/organizations', owner.token, { name: 'Team' })).json().id as string;
    const db = t.deps.database.db;
    await db.insertInto('memberships').values({ org_id: team, user_id: member.id, role: 'member', created_at: new Date(t.clock.now()).toISOString() }).execute();
    const refused = await deleteMe(owner.token, { password: owner.password });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'last_owner', organization_id: team });
    expect((await call('GET', '/v1/agents', owner.key)).statusCode).toBe(200);
    expect((await call('GET', '/v1/users/me', owner.other.access_token)).statusCode).toBe(200);

    // Scheduled while alone; a member joins during the grace (an invitation accepted). Past the
    // grace the sweep cannot delete it, and postponing would strand the team with an owner who
    // cannot sign in: the deletion is called off, and the owner signs in again.
    await db.deleteFrom('memberships').where('org_id', '=', team).where('user_id', '=', member.id).execute();
    expect((await deleteMe(owner.token, { password: owner.password })).statusCode).toBe(202);
    await db.insertInto('memberships').values({ org_id: team, user_id: member.id, role: 'member', created_at: new Date(t.clock.now()).toISOString() }).execute();
    t.clock.advance(31 * DAY);
    expect(await t.deps.accountPurge.purgeOnce()).toBe(0);
    expect(await dueAt(owner.id)).toBeNull();
    expect(t.logs.some((line) => line.includes('account deletion cancelled') && line.includes(owner.id))).toBe(true);
    // The owner hears why, and what to do.
    expect((await inbox.waitFor(owner.email, /^Your account was not deleted$/)).text).toContain('you are the last owner of the organization Team, which has other members');
    const again = await login(owner.email, owner.password);
    expect(again.statusCode).toBe(200);
    expect((await call('GET', '/v1/agents', owner.key)).statusCode).toBe(401); // revoked when it was scheduled

    // Handed on, the owner asks again and the sweep deletes it, leaving the team.
    await db.updateTable('memberships').set({ role: 'owner' }).where('org_id', '=', team).where('user_id', '=', member.id).execute();
    expect((await deleteMe(again.json().access_token, { password: owner.password })).statusCode).toBe(202);
    t.clock.advance(31 * DAY);
    expect(await t.deps.accountPurge.purgeOnce()).toBe(1);
    expect(await dueAt(owner.id)).toBeUndefined();
    expect([await count('organizations', 'id', team), await count('organizations', 'id', owner.orgId)]).toEqual([1, 0]);
  });

  it('withdraws the pending invitations of the organizations that go with the account, so none can block the purge', async () => {
    const owner = await populated();
    const team = (await call('POST', '/v1/organizations', owner.token, { name: 'Solo team' })).json().id as string;
    const guest = await t.signUp();
    await t.confirmEmail(guest.id);
    expect((await call('POST', `/v1/organizations/${team}/invitations`, owner.token, { email: guest.email, role: 'member' })).statusCode).toBe(201);
    const token = tokenFromMail(await inbox.waitFor(guest.email, /invited to join/), 'accept-invitation');
    expect((await deleteMe(owner.token, { password: owner.password })).statusCode).toBe(202);

    const accepted = await call('POST', '/v1/invitations/accept', guest.tokens.access_token, { token });
    expect(accepted.statusCode).toBe(400);
    expect(accepted.json().code).toBe('invalid_invitation');
    t.clock.advance(31 * DAY);
    await t.deps.accountPurge.purgeOnce();
    expect([await dueAt(owner.id), await count('organizations', 'id', team)]).toEqual([undefined, 0]);
  });

  // SQLite runs one writer at a time; on PostgreSQL the purge and a leave can run at once.
  it.skipIf(!process.env.DATABASE_URL)('never leaves a team without an owner when the other owner leaves while the purge runs', async () => {
    const db = t.deps.database.db;
    const doomed = await t.signUp();
    const other = await t.signUp();
    const member = await t.signUp();
    const team = (await call('POST', '/v1/organizations', doomed.tokens.access_token, { name: 'Race' })).json().id as string;
    const joined = new Date(t.clock.now()).toISOString();
    await db.insertInto('memberships').values([
      { org_id: team, user_id: other.id, role: 'owner', created_at: joined },
      { org_id: team, user_id: member.id, role: 'member', created_at: joined },
    ]).execute();
    await t.deps.organizationCache.membershipChanged(team, other.id);
    expect((await deleteMe(doomed.tokens.access_token, { password: doomed.password })).statusCode).toBe(202);
    t.clock.advance(31 * DAY);
    const otherToken = (await t.login(other.email, other.password)).access_token;

    // Hold the purge after it has checked the owners and before it commits: a key-share lock on
    // the personal organization it deletes makes its DELETE wait. The leave comes in then.
    const personalOrgId = await t.personalOrgId(doomed.id);
    const release = await holdLock((trx) => trx.selectFrom('organizations').select('id').where('id', '=', personalOrgId).forKeyShare().execute());
    const purge = t.deps.accountPurge.purgeOnce();
    await until('the purge to wait', async () => (await waitingOnLocks()) === 1);
    let leaveDone = false;
    const leave = call('DELETE', `/v1/organizations/${team}/members/${other.id}`, otherToken).finally(() => (leaveDone = true));
    // Either the leave waits for the purge (the team is locked) or, unlocked, it finishes first.
    await until('the leave to wait or finish', async () => leaveDone || (await waitingOnLocks()) === 2);
    await release();
    const [, left] = await Promise.all([purge, leave]);

    const owners = await db.selectFrom('memberships').select('user_id').where('org_id', '=', team).where('role', '=', 'owner').execute();
    // The purge went first and deleted the account; the leave then found itself the last owner.
    expect(owners.map((o) => o.user_id), `leave answered ${left.statusCode}`).toEqual([other.id]);
    expect(left.statusCode).toBe(409);
    expect(await dueAt(doomed.id)).toBeUndefined();
  });

  it.skipIf(!process.env.DATABASE_URL)('a team deleted while the purge runs: both take the organization before the account, so neither deadlocks', async () => {
    const db = t.deps.database.db;
    const doomed = await t.signUp();
    const other = await t.signUp();
    const team = (await call('POST', '/v1/organizations', doomed.tokens.access_token, { name: 'Going' })).json().id as string;
    await db.insertInto('memberships').values({ org_id: team, user_id: other.id, role: 'owner', created_at: new Date(t.clock.now()).toISOString() }).execute();
    await t.deps.organizationCache.membershipChanged(team, other.id);
    expect((await deleteMe(doomed.tokens.access_token, { password: doomed.password })).statusCode).toBe(202);
    t.clock.advance(31 * DAY);
    const otherToken = (await t.login(other.email, other.password)).access_token;

    // A share lock on the account's row queues both on it, the purge first: deleting the team
    // updates its members' rows (their organization counts) after locking the team. A purge that
    // took the account's row before the team would then wait for the team while the team's
    // deletion waits for the account's row: a deadlock, one of them failed by PostgreSQL.
    const release = await holdLock((trx) => trx.selectFrom('users').select('id').where('id', '=', doomed.id).forShare().execute());
    const purge = t.deps.accountPurge.purgeOnce();
    await until('the purge to wait', async () => (await waitingOnLocks()) === 1);
    const deleted = call('DELETE', `/v1/organizations/${team}`, otherToken);
    await until('the deletion of the team to wait', async () => (await waitingOnLocks()) === 2);
    await release();
    const [purged, answer] = await Promise.all([purge, deleted]);
    expect(answer.statusCode, answer.body).toBe(204);
    expect(purged).toBe(1);
    expect([await dueAt(doomed.id), await count('organizations', 'id', team)]).toEqual([undefined, 0]);
  });

  it('an account without a password deletes with a recent sign-in, and a passkey sign-in restores it', async () => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const authenticator = new SoftAuthenticator('http://gatehouse.test');
    const options = (await call('POST', '/v1/users/me/passkeys/options', user.tokens.access_token, { password: user.password })).json();
    expect((await call('POST', '/v1/users/me/passkeys', user.tokens.access_token, { challenge_id: options.challenge_id, credential: authenticator.create(options.options), name: 'Key' })).statusCode).toBe(201);
    await t.deps.database.db.updateTable('users').set({ password_hash: '' }).where('id', '=', user.id).execute();
    await t.deps.accounts.changed(user.id);

    t.clock.advance(11 * 60_000); // the sign-in is no longer recent (MFA_STEP_UP_SECONDS: 600)
    const stale = await deleteMe(user.tokens.access_token);
    expect(stale.statusCode).toBe(403);
    const passkeyLogin = async () => {
      const { challenge_id, options: request } = (await t.request({ method: 'POST', url: '/v1/auth/passkey/options' })).json();
      return t.request({ method: 'POST', url: '/v1/auth/passkey/verify', payload: { challenge_id, credential: authenticator.get(request) } });
    };
    const fresh = (await passkeyLogin()).json().access_token as string;
    expect((await deleteMe(fresh)).statusCode).toBe(202);
    expect((await call('GET', '/v1/users/me', fresh)).statusCode).toBe(401);

    const restored = await passkeyLogin();
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await dueAt(user.id)).toBeNull();
  });
});
