import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, STRONG_PASSWORD, uniqueEmail, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

/** Issue 21 ("Teams"): organizations, members and roles, invitations by mail, the audit log. */
describe(`organizations (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  const UA = 'organizations-test/1.0';
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>' } });
  });
  afterAll(async () => {
    await t.close();
    await inbox.close();
  });

  interface Person { id: string; email: string; token: string }
  /** A signed-up user with a confirmed address (accepting an invitation needs one). */
  const person = async (confirmed = true): Promise<Person> => {
    const user = await t.signUp();
    if (confirmed) await t.confirmEmail(user.id);
    return { id: user.id, email: user.email, token: user.tokens.access_token };
  };
  const call = (who: Person | string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request({ method, url, headers: { ...bearer(typeof who === 'string' ? who : who.token), 'user-agent': UA, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const createOrg = async (owner: Person, name = 'Acme') => {
    const res = await call(owner, 'POST', '/v1/organizations', { name });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; name: string; role: string; personal: boolean };
  };
  const mailsTo = new Map<string, number>();
  /** Invites `email` and returns the token of the link in the mail it gets. */
  const invite = async (by: Person, orgId: string, email: string, role: string) => {
    const res = await call(by, 'POST', `/v1/organizations/${orgId}/invitations`, { email, role });
    expect(res.statusCode, res.body).toBe(201);
    const count = (mailsTo.get(email) ?? 0) + 1;
    mailsTo.set(email, count);
    const mail = await inbox.waitFor(email, /invited to join/, count);
    return { invitation: res.json(), token: tokenFromMail(mail, 'accept-invitation'), mail };
  };
  const accept = (who: Person, token: string) => call(who, 'POST', '/v1/invitations/accept', { token });
  /** Adds `who` to the organization with `role` (invited by `by`, an owner). */
  const join = async (by: Person, orgId: string, who: Person, role: string) => {
    const { token } = await invite(by, orgId, who.email, role);
    const res = await accept(who, token);
    expect(res.statusCode, res.body).toBe(200);
  };
  const organizationCount = async (userId: string) =>
    Number((await t.deps.database.db.selectFrom('users').select('organization_count').where('id', '=', userId).executeTakeFirstOrThrow()).organization_count);
  const expectProblem = (res: { statusCode: number; json(): { code: string } }, status: number, code: string) => {
    expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
    expect(res.json().code).toBe(code);
  };
  /** An API key made by `who` acting for the organization (the Gatehouse-Organization header). */
  const keyIn = async (who: Person, orgId: string) => {
    const res = await call(who, 'POST', '/v1/api-keys', { name: 'runtime', scopes: ['agents:read'] }, { 'gatehouse-organization': orgId });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; key: string };
  };

  describe('create, list, get, rename, delete', () => {
    it('creates an organization whose creator is owner, with Location, and replays it for the same Idempotency-Key', async () => {
      const ada = await person();
      const res = await call(ada, 'POST', '/v1/organizations', { name: '  Acme  ' }, { 'idempotency-key': 'create-acme' });
      expect(res.statusCode, res.body).toBe(201);
      const org = res.json();
      expect(org).toEqual({
        id: expect.stringMatching(/^org_/), name: 'Acme', personal: false, role: 'owner', tier: 'free',
        limits: { per_minute: 100, per_day: 10_000, streams: 5 }, created_at: expect.any(String), updated_at: expect.any(String),
      });
      expect(res.headers.location).toBe(`/v1/organizations/${org.id}`);
      const replay = await call(ada, 'POST', '/v1/organizations', { name: '  Acme  ' }, { 'idempotency-key': 'create-acme' });
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json().id).toBe(org.id);
      expect((await call(ada, 'GET', `/v1/organizations/${org.id}`)).json()).toEqual(org);
      expectProblem(await call(ada, 'POST', '/v1/organizations', { name: '' }), 400, 'validation_failed');
      expectProblem(await call(ada, 'POST', '/v1/organizations', { name: 'x', extra: 1 }), 400, 'validation_failed');
    });

    it('lists the caller\'s organizations newest first with their role, a page at a time, the personal one included', async () => {
      const ada = await person();
      const first = await createOrg(ada, 'One');
      const second = await createOrg(ada, 'Two');
      const bob = await person();
      const third = await createOrg(bob, 'Bob\'s');
      await join(bob, third.id, ada, 'viewer');

      const all = (await call(ada, 'GET', '/v1/organizations')).json();
      expect(all.next_cursor).toBeNull();
      expect(all.data.map((o: { id: string }) => o.id).slice(0, 3)).toEqual([third.id, second.id, first.id]);
      expect(all.data[0]).toMatchObject({ name: 'Bob\'s', role: 'viewer' });
      expect(all.data.filter((o: { personal: boolean }) => o.personal)).toHaveLength(1);
      expect(all.data).toHaveLength(4);

      const page1 = (await call(ada, 'GET', '/v1/organizations?limit=2')).json();
      expect(page1.data.map((o: { id: string }) => o.id)).toEqual([third.id, second.id]);
      const page2 = (await call(ada, 'GET', `/v1/organizations?limit=2&cursor=${page1.next_cursor}`)).json();
      expect(page2.data.map((o: { id: string }) => o.id)[0]).toBe(first.id);
      expect(page2.next_cursor).toBeNull();
      expectProblem(await call(ada, 'GET', '/v1/organizations?cursor=nope'), 400, 'validation_failed');
      // Bob does not see Ada's organizations.
      expect((await call(bob, 'GET', '/v1/organizations')).json().data.map((o: { id: string }) => o.id)).not.toContain(first.id);
    });

    it('renames (admin or owner) and deletes (owner), giving every member their membership back', async () => {
      const owner = await person();
      const admin = await person();
      const org = await createOrg(owner, 'Old name');
      await join(owner, org.id, admin, 'admin');
      const renamed = await call(admin, 'PATCH', `/v1/organizations/${org.id}`, { name: 'New name' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json()).toMatchObject({ name: 'New name', role: 'admin' });
      expect((await call(owner, 'GET', `/v1/organizations/${org.id}`)).json().name).toBe('New name');

      const counts = [await organizationCount(owner.id), await organizationCount(admin.id)];
      expectProblem(await call(admin, 'DELETE', `/v1/organizations/${org.id}`), 403, 'insufficient_role');
      const deleted = await call(owner, 'DELETE', `/v1/organizations/${org.id}`);
      expect(deleted.statusCode, deleted.body).toBe(204);
      expectProblem(await call(owner, 'GET', `/v1/organizations/${org.id}`), 404, 'not_found');
      expectProblem(await call(admin, 'GET', `/v1/organizations/${org.id}/members`), 404, 'not_found');
      expect([await organizationCount(owner.id), await organizationCount(admin.id)]).toEqual([counts[0]! - 1, counts[1]! - 1]);
      expect(await t.deps.database.db.selectFrom('memberships').select('user_id').where('org_id', '=', org.id).execute()).toEqual([]);
    });

    it('deleting an organization stops its API keys at once', async () => {
      const owner = await person();
      const org = await createOrg(owner);
      const key = await keyIn(owner, org.id);
      expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(200);
      expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}`)).statusCode).toBe(204);
      expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(401);
    });

    it('refuses to delete a personal organization (409): it goes only with its user', async () => {
      const ada = await person();
      const personal = (await call(ada, 'GET', '/v1/organizations')).json().data.find((o: { personal: boolean }) => o.personal);
      expect(personal).toMatchObject({ role: 'owner', personal: true });
      expectProblem(await call(ada, 'DELETE', `/v1/organizations/${personal.id}`), 409, 'conflict');
    });

    it('caps the organizations of an account (422 limit_reached) and gives a membership back when one ends', async () => {
      const ada = await person();
      await t.deps.database.db.updateTable('users').set({ organization_count: 99 }).where('id', '=', ada.id).execute();
      const last = await createOrg(ada, 'The 100th');
      const refused = await call(ada, 'POST', '/v1/organizations', { name: 'One too many' });
      expectProblem(refused, 422, 'limit_reached');
      expect(refused.json().limit).toBe(100);
      // An invitation cannot pass the cap either.
      const bob = await person();
      const bobs = await createOrg(bob);
      const { token } = await invite(bob, bobs.id, ada.email, 'member');
      expectProblem(await accept(ada, token), 422, 'limit_reached');
      expect((await call(ada, 'DELETE', `/v1/organizations/${last.id}`)).statusCode).toBe(204);
      expect((await accept(ada, token)).statusCode).toBe(200);
    });
  });

  describe('who may do what', () => {
    let owner: Person;
    let admin: Person;
    let member: Person;
    let viewer: Person;
    let orgId: string;
    beforeAll(async () => {
      owner = await person();
      [admin, member, viewer] = [await person(), await person(), await person()];
      orgId = (await createOrg(owner)).id;
      await join(owner, orgId, admin, 'admin');
      await join(owner, orgId, member, 'member');
      await join(owner, orgId, viewer, 'viewer');
    });

    it('lets any member read the organization and its members', async () => {
      for (const who of [viewer, member]) {
        expect((await call(who, 'GET', `/v1/organizations/${orgId}`)).statusCode).toBe(200);
        const members = await call(who, 'GET', `/v1/organizations/${orgId}/members`);
        expect(members.statusCode).toBe(200);
        expect(members.json().data).toHaveLength(4);
      }
      const listed = (await call(viewer, 'GET', `/v1/organizations/${orgId}/members`)).json().data;
      expect(listed.find((m: { user_id: string }) => m.user_id === admin.id)).toEqual({ user_id: admin.id, email: admin.email, name: 'Test User', role: 'admin', joined_at: expect.any(String) });
      const page = (await call(viewer, 'GET', `/v1/organizations/${orgId}/members?limit=3`)).json();
      expect(page.data).toHaveLength(3);
      const rest = (await call(viewer, 'GET', `/v1/organizations/${orgId}/members?limit=3&cursor=${page.next_cursor}`)).json();
      expect(rest.data).toHaveLength(1);
      expect(rest.next_cursor).toBeNull();
    });

    it('answers viewers and members 403 insufficient_role (required_role admin) on admin operations', async () => {
      for (const who of [viewer, member]) {
        const attempts = [
          call(who, 'PATCH', `/v1/organizations/${orgId}`, { name: 'Mine now' }),
          call(who, 'POST', `/v1/organizations/${orgId}/invitations`, { email: uniqueEmail(), role: 'viewer' }),
          call(who, 'GET', `/v1/organizations/${orgId}/invitations`),
          call(who, 'GET', `/v1/organizations/${orgId}/audit-log`),
          call(who, 'PATCH', `/v1/organizations/${orgId}/members/${viewer.id === who.id ? member.id : viewer.id}`, { role: 'admin' }),
          call(who, 'DELETE', `/v1/organizations/${orgId}/members/${viewer.id === who.id ? member.id : viewer.id}`),
        ];
        for (const res of await Promise.all(attempts)) {
          expectProblem(res, 403, 'insufficient_role');
          expect(res.json().required_role).toBe('admin');
        }
        expectProblem(await call(who, 'DELETE', `/v1/organizations/${orgId}`), 403, 'insufficient_role');
      }
      expect((await call(owner, 'GET', `/v1/organizations/${orgId}`)).json().name).toBe('Acme');
    });

    it('leaves owners to owners: an admin cannot make, invite, demote or remove an owner (403 required_role owner)', async () => {
      const second = await person();
      await join(owner, orgId, second, 'owner');
      const attempts = [
        call(admin, 'PATCH', `/v1/organizations/${orgId}/members/${member.id}`, { role: 'owner' }),
        call(admin, 'POST', `/v1/organizations/${orgId}/invitations`, { email: uniqueEmail(), role: 'owner' }),
        call(admin, 'PATCH', `/v1/organizations/${orgId}/members/${second.id}`, { role: 'admin' }),
        call(admin, 'DELETE', `/v1/organizations/${orgId}/members/${second.id}`),
        call(admin, 'DELETE', `/v1/organizations/${orgId}`),
      ];
      for (const res of await Promise.all(attempts)) {
        expectProblem(res, 403, 'insufficient_role');
        expect(res.json().required_role).toBe('owner');
      }
      // An admin manages the other roles.
      const promoted = await call(admin, 'PATCH', `/v1/organizations/${orgId}/members/${viewer.id}`, { role: 'member' });
      expect(promoted.statusCode, promoted.body).toBe(200);
      expect(promoted.json()).toMatchObject({ user_id: viewer.id, role: 'member' });
      expect((await call(admin, 'PATCH', `/v1/organizations/${orgId}/members/${viewer.id}`, { role: 'viewer' })).statusCode).toBe(200);
      expect((await call(owner, 'DELETE', `/v1/organizations/${orgId}/members/${second.id}`)).statusCode).toBe(204);
    });

    it('keeps the last owner: nobody demotes or removes them, and they cannot leave (409 last_owner)', async () => {
      for (const res of [
        await call(admin, 'PATCH', `/v1/organizations/${orgId}/members/${owner.id}`, { role: 'member' }),
        await call(admin, 'DELETE', `/v1/organizations/${orgId}/members/${owner.id}`),
        await call(owner, 'PATCH', `/v1/organizations/${orgId}/members/${owner.id}`, { role: 'admin' }),
        await call(owner, 'DELETE', `/v1/organizations/${orgId}/members/${owner.id}`),
      ]) expectProblem(res, 409, 'last_owner');
      expect((await call(owner, 'GET', `/v1/organizations/${orgId}`)).json().role).toBe('owner');
    });

    it('answers non-members, malformed and unknown ids with the same 404', async () => {
      const stranger = await person();
      const unknown = 'org_01jd4z3k8x2v6n9q7w5e3r1t0y';
      for (const id of [orgId, unknown, 'not-an-id', 'usr_01jd4z3k8x2v6n9q7w5e3r1t0y']) {
        for (const [method, url, body] of [
          ['GET', `/v1/organizations/${id}`],
          ['PATCH', `/v1/organizations/${id}`, { name: 'x' }],
          ['DELETE', `/v1/organizations/${id}`],
          ['GET', `/v1/organizations/${id}/members`],
          ['PATCH', `/v1/organizations/${id}/members/${owner.id}`, { role: 'viewer' }],
          ['DELETE', `/v1/organizations/${id}/members/${owner.id}`],
          ['POST', `/v1/organizations/${id}/invitations`, { email: uniqueEmail(), role: 'viewer' }],
          ['GET', `/v1/organizations/${id}/invitations`],
          ['GET', `/v1/organizations/${id}/audit-log`],
        ] as const) {
          const res = await call(stranger, method, url, body);
          expectProblem(res, 404, 'not_found');
          expect(res.json().detail).toBe('No organization with this id.');
        }
      }
      expectProblem(await call(owner, 'PATCH', `/v1/organizations/${orgId}/members/${stranger.id}`, { role: 'viewer' }), 404, 'not_found');
      expectProblem(await call(owner, 'DELETE', `/v1/organizations/${orgId}/members/nope`), 404, 'not_found');
      expectProblem(await call(owner, 'DELETE', `/v1/organizations/${orgId}/invitations/inv_nope`), 404, 'not_found');
    });

    it('needs an access token: an API key gets 403 session_required', async () => {
      const key = await keyIn(owner, orgId);
      expectProblem(await call(key.key, 'GET', `/v1/organizations/${orgId}`), 403, 'session_required');
    });
  });

  describe('owners and the last-owner rule', () => {
    it('lets an owner make another owner, who may then demote the first', async () => {
      const a = await person();
      const b = await person();
      const org = await createOrg(a);
      await join(a, org.id, b, 'admin');
      expect((await call(a, 'PATCH', `/v1/organizations/${org.id}/members/${b.id}`, { role: 'owner' })).json().role).toBe('owner');
      const demoted = await call(b, 'PATCH', `/v1/organizations/${org.id}/members/${a.id}`, { role: 'member' });
      expect(demoted.statusCode, demoted.body).toBe(200);
      expect((await call(a, 'GET', `/v1/organizations/${org.id}`)).json().role).toBe('member');
    });

    it('lets only one of two concurrent demotions of the last two owners through', async () => {
      const a = await person();
      const b = await person();
      const org = await createOrg(a);
      await join(a, org.id, b, 'owner');
      const results = await Promise.all([
        call(a, 'PATCH', `/v1/organizations/${org.id}/members/${b.id}`, { role: 'admin' }),
        call(b, 'PATCH', `/v1/organizations/${org.id}/members/${a.id}`, { role: 'admin' }),
      ]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const members = (await call(a, 'GET', `/v1/organizations/${org.id}/members`)).json().data as { role: string }[];
      expect(members.filter((m) => m.role === 'owner')).toHaveLength(1);
    });

    it('keeps the user of a personal organization its owner (409 conflict), whatever another owner tries', async () => {
      const ada = await person();
      const personal = (await call(ada, 'GET', '/v1/organizations')).json().data.find((o: { personal: boolean }) => o.personal);
      const bob = await person();
      // A personal organization takes no members now (409); bob is one from before it refused them.
      expectProblem(await call(ada, 'POST', `/v1/organizations/${personal.id}/invitations`, { email: bob.email, role: 'owner' }), 409, 'conflict');
      await t.deps.database.db.insertInto('memberships').values({ org_id: personal.id, user_id: bob.id, role: 'owner', created_at: new Date(t.clock.now()).toISOString() }).execute();
      expectProblem(await call(bob, 'PATCH', `/v1/organizations/${personal.id}/members/${ada.id}`, { role: 'admin' }), 409, 'conflict');
      expectProblem(await call(bob, 'DELETE', `/v1/organizations/${personal.id}/members/${ada.id}`), 409, 'conflict');
      expectProblem(await call(ada, 'DELETE', `/v1/organizations/${personal.id}/members/${ada.id}`), 409, 'conflict');
      // Bob may leave it.
      expect((await call(bob, 'DELETE', `/v1/organizations/${personal.id}/members/${bob.id}`)).statusCode).toBe(204);
    });
  });

  describe('leaving and removing members', () => {
    it('lets a member leave: they lose access and get their membership back', async () => {
      const owner = await person();
      const leaver = await person();
      const org = await createOrg(owner);
      await join(owner, org.id, leaver, 'member');
      const before = await organizationCount(leaver.id);
      expectProblem(await call(leaver, 'DELETE', `/v1/organizations/${org.id}/members/${leaver.id}?api_keys=keep`), 400, 'validation_failed');
      const left = await call(leaver, 'DELETE', `/v1/organizations/${org.id}/members/${leaver.id}`);
      expect(left.statusCode, left.body).toBe(204);
      expectProblem(await call(leaver, 'GET', `/v1/organizations/${org.id}`), 404, 'not_found');
      expect(await organizationCount(leaver.id)).toBe(before - 1);
      const members = (await call(owner, 'GET', `/v1/organizations/${org.id}/members`)).json().data;
      expect(members.map((m: { user_id: string }) => m.user_id)).toEqual([owner.id]);
    });

    it("revokes the removed member's API keys in that organization (401 at once), and only those", async () => {
      const owner = await person();
      const leaver = await person();
      const org = await createOrg(owner);
      await join(owner, org.id, leaver, 'admin');
      const key = await keyIn(leaver, org.id);
      const ownersKey = await keyIn(owner, org.id);
      const personal = (await call(leaver, 'GET', '/v1/organizations')).json().data.find((o: { personal: boolean }) => o.personal);
      const elsewhere = await keyIn(leaver, personal.id);
      expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(200);
      const removed = await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${leaver.id}`);
      expect(removed.statusCode, removed.body).toBe(204);
      expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(401);
      expect((await call(ownersKey.key, 'GET', '/v1/agents')).statusCode).toBe(200);
      expect((await call(elsewhere.key, 'GET', '/v1/agents')).statusCode).toBe(200);
      const row = await t.deps.database.db.selectFrom('organizations').select('api_key_count').where('id', '=', org.id).executeTakeFirstOrThrow();
      expect(Number(row.api_key_count)).toBe(1);
    });

    it('hands the keys to the remover with api_keys=keep: they keep working', async () => {
      const owner = await person();
      const leaver = await person();
      const org = await createOrg(owner);
      await join(owner, org.id, leaver, 'member');
      const key = await keyIn(leaver, org.id);
      const removed = await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${leaver.id}?api_keys=keep`);
      expect(removed.statusCode, removed.body).toBe(204);
      expect((await call(key.key, 'GET', '/v1/agents')).statusCode).toBe(200);
      const row = await t.deps.database.db.selectFrom('api_keys').select(['user_id', 'revoked_at']).where('id', '=', key.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ user_id: owner.id, revoked_at: null });
      expectProblem(await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${owner.id}?api_keys=sometimes`), 400, 'validation_failed');
    });
  });

  describe('invitations', () => {
    it('mails a single-use link; accepting joins with the role, a second accept is 400 invalid_invitation', async () => {
      const owner = await person();
      const org = await createOrg(owner, 'Invite & Co');
      const guest = await person();
      // Addresses compare normalized: an invitation to Another@… is the account's of another@….
      const [local, domain] = guest.email.split('@');
      const shouted = `${local!.toUpperCase()}@${domain}`;
      const { invitation, token, mail } = await invite(owner, org.id, shouted, 'member');
      expect(invitation).toEqual({
        id: expect.stringMatching(/^inv_/), organization_id: org.id, email: shouted, role: 'member', invited_by: owner.id,
        status: 'pending', created_at: expect.any(String), expires_at: new Date(Date.parse(invitation.created_at) + 7 * 86_400_000).toISOString(),
      });
      expect(token).toMatch(/^gthi_/);
      expect(mail.text).toContain('http://gatehouse.test/accept-invitation?token=');
      expect(mail.html).toContain('Invite &amp; Co');
      const pending = (await call(owner, 'GET', `/v1/organizations/${org.id}/invitations`)).json();
      expect(pending.data.map((i: { id: string }) => i.id)).toEqual([invitation.id]);
      expect(JSON.stringify(pending)).not.toContain(token);

      const joined = await accept(guest, token);
      expect(joined.statusCode, joined.body).toBe(200);
      expect(joined.json()).toMatchObject({ id: org.id, name: 'Invite & Co', role: 'member', personal: false });
      const again = await accept(guest, token);
      expectProblem(again, 400, 'invalid_invitation');
      expect(again.json().detail).toMatch(/already been used/);
      expect((await call(owner, 'GET', `/v1/organizations/${org.id}/invitations`)).json().data).toEqual([]);
      expectProblem(await call(owner, 'POST', `/v1/organizations/${org.id}/invitations`, { email: guest.email, role: 'admin' }), 409, 'conflict');
      const event = await t.deps.database.db.selectFrom('events').select(['type', 'data']).where('org_id', '=', org.id).where('type', '=', 'organization.member.added').executeTakeFirstOrThrow();
      expect(JSON.parse(event.data)).toEqual({ organization_id: org.id, user_id: guest.id, role: 'member' });
    });

    it('is spent once under concurrent accepts', async () => {
      const owner = await person();
      const org = await createOrg(owner);
      const guest = await person();
      const { token } = await invite(owner, org.id, guest.email, 'viewer');
      const results = await Promise.all([accept(guest, token), accept(guest, token), accept(guest, token)]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
      expect((await call(owner, 'GET', `/v1/organizations/${org.id}/members`)).json().data).toHaveLength(2);
    });

    it('expires after 7 days', async () => {
      const owner = await person();
      const org = await createOrg(owner);
      const guest = await person();
      const { token } = await invite(owner, org.id, guest.email, 'viewer');
      t.clock.advance(7 * 86_400_000 + 1000);
      // The access tokens expired too: sign in again.
      const fresh = { ...guest, token: (await t.login(guest.email, STRONG_PASSWORD)).access_token };
      const late = await accept(fresh, token);
      expectProblem(late, 400, 'invalid_invitation');
      expect(late.json().detail).toMatch(/expired/);
      const ownerAgain = { ...owner, token: (await t.login(owner.email, STRONG_PASSWORD)).access_token };
      expect((await call(ownerAgain, 'GET', `/v1/organizations/${org.id}/invitations`)).json().data).toEqual([]);
    });

    it('refuses another signed-in address (403) and an unconfirmed one (403 email_not_verified), without spending the link', async () => {
      const owner = await person();
      const org = await createOrg(owner);
      const guest = await person(false);
      const intruder = await person();
      const { token } = await invite(owner, org.id, guest.email, 'admin');
      const wrong = await accept(intruder, token);
      expectProblem(wrong, 403, 'invitation_email_mismatch');
      expect(wrong.json().detail).not.toContain(guest.email);
      expectProblem(await accept(guest, token), 403, 'email_not_verified');
      await t.confirmEmail(guest.id);
      const joined = await accept(guest, token);
      expect(joined.statusCode, joined.body).toBe(200);
      expect(joined.json().role).toBe('admin');
      expectProblem(await call(intruder, 'GET', `/v1/organizations/${org.id}`), 404, 'not_found');
    });

    it('replaces an open invitation to the same address, withdraws one on request, and refuses unknown tokens', async () => {
      const owner = await person();
      const org = await createOrg(owner);
      const guest = await person();
      const first = await invite(owner, org.id, guest.email, 'viewer');
      const second = await invite(owner, org.id, guest.email, 'member');
      expectProblem(await accept(guest, first.token), 400, 'invalid_invitation');
      const pending = (await call(owner, 'GET', `/v1/organizations/${org.id}/invitations`)).json().data;
      expect(pending.map((i: { id: string }) => i.id)).toEqual([second.invitation.id]);
      expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}/invitations/${second.invitation.id}`)).statusCode).toBe(204);
      expectProblem(await call(owner, 'DELETE', `/v1/organizations/${org.id}/invitations/${second.invitation.id}`), 404, 'not_found');
      expectProblem(await accept(guest, second.token), 400, 'invalid_invitation');
      expectProblem(await accept(guest, 'gthi_' + 'a'.repeat(43)), 400, 'invalid_invitation');
      expectProblem(await accept(guest, 'not a token'), 400, 'invalid_invitation');
      expectProblem(await call(guest, 'GET', `/v1/organizations/${org.id}`), 404, 'not_found');
    });
  });

  describe('invitations outlive no power of their sender', () => {
    it("demoting an admin to viewer withdraws the invitations they sent (listed as such in the audit log); a link of theirs joins no one", async () => {
      const owner = await person();
      const org = await createOrg(owner, 'Sender rules');
      const admin = await person();
      await join(owner, org.id, admin, 'admin');
      const alias1 = await person();
      const alias2 = await person();
      const first = await invite(admin, org.id, alias1.email, 'admin');
      const second = await invite(admin, org.id, alias2.email, 'viewer');
      // An owner made admin may no longer invite owners; demoted to viewer, nothing at all.
      expect((await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${admin.id}`, { role: 'viewer' })).statusCode).toBe(200);
      const pending = (await call(owner, 'GET', `/v1/organizations/${org.id}/invitations`)).json().data as { id: string }[];
      expect(pending.map((i) => i.id)).not.toContain(first.invitation.id);
      expect(pending.map((i) => i.id)).not.toContain(second.invitation.id);
      expectProblem(await accept(alias1, first.token), 400, 'invalid_invitation');
      expectProblem(await accept(alias2, second.token), 400, 'invalid_invitation');
      expect((await call(owner, 'GET', `/v1/organizations/${org.id}/members`)).json().data.map((m: { id: string }) => m.id)).not.toContain(alias1.id);
      const audit = (await call(owner, 'GET', `/v1/organizations/${org.id}/audit-log`)).json().data as { action: string; detail: Record<string, unknown> }[];
      expect(audit.find((e) => e.action === 'member.role_changed')?.detail.invitations_withdrawn).toEqual(expect.arrayContaining([first.invitation.id, second.invitation.id]));
    });

    it('a removed admin\'s invitations are withdrawn; an owner demoted to admin keeps those to admin and loses those to owner', async () => {
      const owner = await person();
      const org = await createOrg(owner, 'Removed sender');
      const admin = await person();
      await join(owner, org.id, admin, 'admin');
      const guest = await person();
      const sent = await invite(admin, org.id, guest.email, 'member');
      expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${admin.id}`)).statusCode).toBe(204);
      expectProblem(await accept(guest, sent.token), 400, 'invalid_invitation');

      const coOwner = await person();
      await join(owner, org.id, coOwner, 'owner');
      const toAdmin = await person();
      const toOwner = await person();
      const keeps = await invite(coOwner, org.id, toAdmin.email, 'admin');
      const loses = await invite(coOwner, org.id, toOwner.email, 'owner');
      expect((await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${coOwner.id}`, { role: 'admin' })).statusCode).toBe(200);
      expectProblem(await accept(toOwner, loses.token), 400, 'invalid_invitation');
      expect((await accept(toAdmin, keeps.token)).json()).toMatchObject({ role: 'admin' });
    });

    it('a link whose sender was demoted behind its back (no withdrawal ran) still joins no one: acceptance checks the sender', async () => {
      const owner = await person();
      const org = await createOrg(owner, 'Checked at the door');
      const admin = await person();
      await join(owner, org.id, admin, 'admin');
      const guest = await person();
      const sent = await invite(admin, org.id, guest.email, 'admin');
      // As if the withdrawal had been missed (a role changed by hand, an older instance).
      await t.deps.database.db.updateTable('memberships').set({ role: 'member' }).where('org_id', '=', org.id).where('user_id', '=', admin.id).execute();
      const refused = await accept(guest, sent.token);
      expectProblem(refused, 400, 'invalid_invitation');
      expect(refused.json().detail).toMatch(/can no longer invite/);
    });
  });

  describe('audit log', () => {
    it('records who did what from where, newest first, a page at a time (admin or owner)', async () => {
      const owner = await person();
      const guest = await person();
      const org = await createOrg(owner, 'Audited');
      expect((await call(owner, 'PATCH', `/v1/organizations/${org.id}`, { name: 'Audited Inc' })).statusCode).toBe(200);
      const { invitation, token } = await invite(owner, org.id, guest.email, 'viewer');
      expect((await accept(guest, token)).statusCode).toBe(200);
      expect((await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${guest.id}`, { role: 'member' })).statusCode).toBe(200);
      const other = await invite(owner, org.id, uniqueEmail(), 'viewer');
      expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}/invitations/${other.invitation.id}`)).statusCode).toBe(204);
      expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${guest.id}`)).statusCode).toBe(204);

      const log = await call(owner, 'GET', `/v1/organizations/${org.id}/audit-log`);
      expect(log.statusCode, log.body).toBe(200);
      const entries = log.json().data as { id: string; action: string; actor: { user_id: string; key_id: string | null }; target_id: string; ip: string; user_agent: string; detail: Record<string, unknown> }[];
      expect(entries.map((e) => e.action)).toEqual([
        'member.removed', 'invitation.revoked', 'member.invited', 'member.role_changed', 'member.joined', 'member.invited', 'organization.updated', 'organization.created',
      ]);
      expect(entries[0]).toMatchObject({ actor: { user_id: owner.id, key_id: null }, target_id: guest.id, ip: '127.0.0.1', user_agent: UA, detail: { role: 'member', api_keys: 'revoked' } });
      expect(entries[3]).toMatchObject({ target_id: guest.id, detail: { from: 'viewer', to: 'member' } });
      expect(entries[4]).toMatchObject({ actor: { user_id: guest.id }, target_id: guest.id, detail: { role: 'viewer', invitation_id: invitation.id } });
      expect(entries[6]).toMatchObject({ detail: { name: { from: 'Audited', to: 'Audited Inc' } } });

      const page = (await call(owner, 'GET', `/v1/organizations/${org.id}/audit-log?limit=3`)).json();
      expect(page.data.map((e: { id: string }) => e.id)).toEqual(entries.slice(0, 3).map((e) => e.id));
      const next = (await call(owner, 'GET', `/v1/organizations/${org.id}/audit-log?limit=3&cursor=${page.next_cursor}`)).json();
      expect(next.data.map((e: { id: string }) => e.id)).toEqual(entries.slice(3, 6).map((e) => e.id));
      // A member who left records member.left.
      const leaver = await person();
      await join(owner, org.id, leaver, 'viewer');
      expect((await call(leaver, 'DELETE', `/v1/organizations/${org.id}/members/${leaver.id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `/v1/organizations/${org.id}/audit-log?limit=1`)).json().data[0]).toMatchObject({ action: 'member.left', actor: { user_id: leaver.id } });
    });
  });
});
