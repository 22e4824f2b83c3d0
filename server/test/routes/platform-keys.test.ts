import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { countStatements } from '../statement-counter.js';

/** Issue 20: service keys and POST /v1/auth/verify, a key's own limits and uses, PATCH and roll. */
describe(`platform keys (${dialect})`, () => {
  let t: TestApp;
  let serviceKey: string;
  let adminId: string;
  let adminToken: string;
  let adminLogin: { email: string; password: string };
  beforeAll(async () => {
    t = await createTestApp();
    const admin = await t.signUp();
    adminId = admin.id;
    adminLogin = admin;
    adminToken = admin.tokens.access_token;
    await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', admin.id).execute();
    await t.deps.accounts.changed(admin.id);
    const created = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(adminToken), payload: { name: 'agent runtime', scopes: ['credentials:verify'] } });
    expect(created.statusCode).toBe(201);
    serviceKey = created.json().key;
  });
  afterAll(() => t.close());

  const createKey = async (token: string, body: Record<string, unknown>) => {
    const res = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(token), payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; key: string; [k: string]: unknown };
  };
  const verify = async (body: Record<string, unknown>, caller = serviceKey) => {
    const res = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(caller), payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const agents = (credential: string) => t.request({ method: 'GET', url: '/v1/agents', headers: bearer(credential) });

  describe('service keys', () => {
    it('are an administrator\'s to create: anyone else gets 403 forbidden, and no key gets the scope by default', async () => {
      const user = await t.signUp();
      const refused = await t.request({ method: 'POST', url: '/v1/api-keys', headers: bearer(user.tokens.access_token), payload: { name: 's', scopes: ['credentials:verify'] } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('forbidden');
      const plain = await createKey(adminToken, { name: 'plain' });
      expect(plain.scopes).not.toContain('credentials:verify');
      const call = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(plain.key), payload: { credential: plain.key } });
      expect(call.statusCode).toBe(403);
      expect(call.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'credentials:verify' });
      // An access token never carries it, not even an administrator's.
      const byToken = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(adminToken), payload: { credential: plain.key } });
      expect(byToken.statusCode).toBe(403);
    });

    it('stop working when their owner is no longer an administrator', async () => {
      const other = await t.signUp();
      await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', other.id).execute();
      await t.deps.accounts.changed(other.id);
      const key = (await createKey(other.tokens.access_token, { name: 'svc', scopes: ['credentials:verify'] })).key;
      expect((await verify({ credential: key }, key)).valid).toBe(true);
      await t.deps.database.db.updateTable('users').set({ role: 'user' }).where('id', '=', other.id).execute();
      await t.deps.accounts.changed(other.id);
      const refused = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(key), payload: { credential: key } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('forbidden');
    });
  });

  describe('POST /v1/auth/verify', () => {
    it("answers a valid key with its owner, scopes, expiry and budget, spending from the owner's budget, not the caller's", async () => {
      const user = await t.signUp();
      const expires_at = new Date(t.clock.now() + 86_400_000).toISOString();
      const key = await createKey(user.tokens.access_token, { name: 'tool', scopes: ['agents:read', 'chats:read'], expires_at });
      const before = (await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(user.tokens.access_token) })).json().day.used;
      const callerBefore = (await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(adminToken) })).json().day.used;
      const answer = await verify({ credential: key.key, scopes: ['agents:read'] });
      expect(answer).toEqual({
        valid: true, code: 'valid', credential_type: 'api_key', user_id: user.id, key_id: key.id, session_id: null,
        scopes: ['agents:read', 'chats:read'], expires_at, remaining: null,
        ratelimit: { minute: { limit: 100, remaining: 99, reset_seconds: expect.any(Number) }, day: { limit: 10_000, remaining: 10_000 - before - 1, reset_seconds: expect.any(Number) }, retry_after: 0 },
      });
      expect((await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(user.tokens.access_token) })).json().day.used).toBe(before + 1);
      expect((await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(adminToken) })).json().day.used).toBe(callerBefore);
      // count: false spends nothing; cost spends that many.
      expect((await verify({ credential: key.key, count: false })).ratelimit.day.remaining).toBe(10_000 - before - 1);
      expect((await verify({ credential: key.key, cost: 5 })).ratelimit.day.remaining).toBe(10_000 - before - 6);
    });

    it('answers revoked, expired, wrong-scope, unknown and malformed keys with the reason', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const revoked = await createKey(token, { name: 'r' });
      await t.request({ method: 'DELETE', url: `/v1/api-keys/${revoked.id}`, headers: bearer(token) });
      expect(await verify({ credential: revoked.key })).toMatchObject({ valid: false, code: 'revoked', user_id: null, ratelimit: null });

      const expiring = await createKey(token, { name: 'e', expires_at: new Date(t.clock.now() + 60_000).toISOString() });
      expect((await verify({ credential: expiring.key })).valid).toBe(true);
      t.clock.advance(61_000);
      expect(await verify({ credential: expiring.key })).toMatchObject({ valid: false, code: 'expired', user_id: user.id, key_id: expiring.id });

      const narrow = await createKey(token, { name: 'n', scopes: ['agents:read'] });
      expect(await verify({ credential: narrow.key, scopes: ['agents:read', 'chats:write'] })).toMatchObject({ valid: false, code: 'insufficient_scope', scopes: ['agents:read'] });

      const forged = narrow.key.slice(0, 10) + (narrow.key[10] === 'a' ? 'b' : 'a') + narrow.key.slice(11);
      expect(await verify({ credential: forged })).toMatchObject({ valid: false, code: 'not_found', credential_type: null });
      expect(await verify({ credential: 'not a credential' })).toMatchObject({ valid: false, code: 'not_found' });
    });

    it("answers rate_limited once the key's own budget or the account's is spent", async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'tight', rate_limit: { per_minute: 2 } });
      expect((await verify({ credential: key.key })).valid).toBe(true);
      expect((await verify({ credential: key.key })).valid).toBe(true);
      const refused = await verify({ credential: key.key });
      expect(refused).toMatchObject({ valid: false, code: 'rate_limited', key_id: key.id, ratelimit: { minute: { limit: 2, remaining: 0 } } });
      expect(refused.ratelimit.retry_after).toBeGreaterThan(0);
    });

    it('answers for access tokens, and refuses a revoked session\'s token, which a JWKS check cannot', async () => {
      const user = await t.signUp();
      const answer = await verify({ credential: user.tokens.access_token });
      expect(answer).toMatchObject({ valid: true, credential_type: 'access_token', user_id: user.id, key_id: null, session_id: expect.stringMatching(/^ses_/) });
      const logout = await t.request({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.tokens.access_token) });
      expect(logout.statusCode).toBe(204);
      expect(await verify({ credential: user.tokens.access_token })).toMatchObject({ valid: false, code: 'revoked', user_id: user.id, session_id: answer.session_id });
    });

    it('answers disabled for a disabled account', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'd' });
      await t.request({ method: 'PATCH', url: `/v1/admin/users/${user.id}`, headers: bearer(adminToken), payload: { disabled: true } });
      expect(await verify({ credential: key.key })).toMatchObject({ valid: false, code: 'disabled', user_id: user.id });
    });

    it('refuses a bad body with 400 and never answers 500', async () => {
      for (const payload of [{}, { credential: '' }, { credential: 'x', cost: 0 }, { credential: 'x', scopes: ['nope'] }, { credential: 'x', extra: 1 }, { credential: 'x'.repeat(5000) }]) {
        const res = await t.request({ method: 'POST', url: '/v1/auth/verify', headers: bearer(serviceKey), payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    });
  });

  describe("a key's own limits", () => {
    it('refuses the 6th request at per_minute 5 while the account still has budget', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'five', rate_limit: { per_minute: 5, per_day: null } });
      expect(key.rate_limit).toEqual({ per_minute: 5, per_day: null });
      for (let i = 0; i < 5; i++) expect((await agents(key.key)).statusCode).toBe(200);
      const sixth = await agents(key.key);
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json()).toMatchObject({ code: 'rate_limited', window: 'minute', limit: 5, limited_by: 'api_key' });
      expect(sixth.headers['retry-after']).toBeDefined();
      // The account's other credentials still have budget.
      const byToken = await agents(user.tokens.access_token);
      expect(byToken.statusCode).toBe(200);
      expect(Number(byToken.headers['x-ratelimit-remaining'])).toBe(100 - 6);
    });

    it('refuses the 4th use at remaining 3, and a daily refill brings uses back', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'three', remaining: 3, refill: { amount: 2, interval: 'day' } });
      expect(key.remaining).toBe(3);
      for (let i = 0; i < 3; i++) expect((await agents(key.key)).statusCode).toBe(200);
      const fourth = await agents(key.key);
      expect(fourth.statusCode).toBe(429);
      expect(fourth.json().code).toBe('usage_exceeded');
      const untilMidnight = Math.ceil((86_400_000 - (t.clock.now() % 86_400_000)) / 1000);
      expect(Math.abs(Number(fourth.headers['retry-after']) - untilMidnight)).toBeLessThanOrEqual(1);
      expect((await t.request({ method: 'GET', url: `/v1/api-keys/${key.id}`, headers: bearer(user.tokens.access_token) })).json().remaining).toBe(0);
      t.clock.advance(untilMidnight * 1000 + 1000);
      const token = (await t.login(user.email, user.password)).access_token;
      expect((await t.request({ method: 'GET', url: `/v1/api-keys/${key.id}`, headers: bearer(token) })).json().remaining).toBe(2);
      expect((await agents(key.key)).statusCode).toBe(200);
      expect((await agents(key.key)).statusCode).toBe(200);
      expect((await agents(key.key)).statusCode).toBe(429);
    });

    it('spends uses exactly under concurrency', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'ten', remaining: 10 });
      const answers = await Promise.all(Array.from({ length: 25 }, () => agents(key.key)));
      expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(10);
      expect(answers.filter((r) => r.statusCode === 429).every((r) => r.json().code === 'usage_exceeded')).toBe(true);
    });

    it('a verification spends `cost` uses and says what is left', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'uses', remaining: 10 });
      expect(await verify({ credential: key.key, cost: 4 })).toMatchObject({ valid: true, remaining: 6 });
      expect(await verify({ credential: key.key, count: false })).toMatchObject({ valid: true, remaining: 6 });
      expect(await verify({ credential: key.key, cost: 7 })).toMatchObject({ valid: false, code: 'usage_exceeded', remaining: 0 });
      expect(await verify({ credential: key.key, cost: 6 })).toMatchObject({ valid: true, remaining: 0 });
      expect(await verify({ credential: key.key, count: false })).toMatchObject({ valid: false, code: 'usage_exceeded' });
    });
  });

  describe('after review', () => {
    it('spends no use on a request refused for its scope', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'narrow uses', scopes: ['chats:read'], remaining: 2 });
      expect((await agents(key.key)).statusCode).toBe(403);
      expect((await t.request({ method: 'GET', url: `/v1/api-keys/${key.id}`, headers: bearer(user.tokens.access_token) })).json().remaining).toBe(2);
    });

    it('spends no use on a route that spends no budget (reading the usage)', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'reader', scopes: ['usage:read'], remaining: 1 });
      for (let i = 0; i < 3; i++) expect((await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(key.key) })).statusCode).toBe(200);
      expect((await t.request({ method: 'GET', url: `/v1/api-keys/${key.id}`, headers: bearer(user.tokens.access_token) })).json().remaining).toBe(1);
    });

    it('with count: false, says whether a call of that cost would be admitted now', async () => {
      const user = await t.signUp();
      const key = await createKey(user.tokens.access_token, { name: 'peek', rate_limit: { per_minute: 3 }, remaining: 5 });
      expect(await verify({ credential: key.key, count: false, cost: 3 })).toMatchObject({ valid: true, remaining: 5 });
      expect(await verify({ credential: key.key, count: false, cost: 4 })).toMatchObject({ valid: false, code: 'rate_limited', ratelimit: { minute: { limit: 3, remaining: 3 } } });
      expect((await verify({ credential: key.key, cost: 3 })).valid).toBe(true);
      const spent = await verify({ credential: key.key, count: false });
      expect(spent).toMatchObject({ valid: false, code: 'rate_limited', remaining: 2 });
      expect(spent.ratelimit.retry_after).toBeGreaterThan(0);
      const uses = await createKey(user.tokens.access_token, { name: 'few uses', remaining: 2 });
      expect(await verify({ credential: uses.key, count: false, cost: 3 })).toMatchObject({ valid: false, code: 'usage_exceeded', remaining: 2 });
    });

    it('PATCH keeps a window left out of rate_limit, and a refill given alone starts a full allowance', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const key = await createKey(token, { name: 'both', rate_limit: { per_minute: 10, per_day: 500 }, remaining: 1 });
      const patch = async (payload: Record<string, unknown>) => (await t.request({ method: 'PATCH', url: `/v1/api-keys/${key.id}`, headers: bearer(token), payload })).json();
      expect((await patch({ rate_limit: { per_minute: 20 } })).rate_limit).toEqual({ per_minute: 20, per_day: 500 });
      expect((await patch({ rate_limit: { per_day: null } })).rate_limit).toEqual({ per_minute: 20, per_day: null });
      expect((await patch({ rate_limit: null })).rate_limit).toBeNull();
      expect((await agents(key.key)).statusCode).toBe(200);
      expect((await agents(key.key)).statusCode).toBe(429);
      expect(await patch({ refill: { amount: 50, interval: 'month' } })).toMatchObject({ remaining: 50, refill: { amount: 50, interval: 'month' } });
      expect((await agents(key.key)).statusCode).toBe(200);
    });
  });

  describe('acting on a key stronger than oneself', () => {
    /** `who` joins `orgId` as `role`, invited by `owner` (the link from the mail the log mailer wrote). */
    const join = async (owner: string, orgId: string, who: { email: string; tokens: { access_token: string } }, role: string) => {
      const invited = await t.request({ method: 'POST', url: `/v1/organizations/${orgId}/invitations`, headers: bearer(owner), payload: { email: who.email, role } });
      expect(invited.statusCode, invited.body).toBe(201);
      await new Promise((resolve) => setImmediate(resolve)); // the mail goes out after the answer
      const link = t.logs.map((line) => /accept-invitation\?token=(gthi_[\w-]+)/.exec(line)?.[1]).filter(Boolean).at(-1)!;
      const joined = await t.request({ method: 'POST', url: '/v1/invitations/accept', headers: bearer(who.tokens.access_token), payload: { token: link } });
      expect(joined.statusCode, joined.body).toBe(200);
    };

    it("an organization admin who is no service administrator cannot roll or change a service key of the team (403), and it keeps working", async () => {
      const service = await t.signUp();
      await t.confirmEmail(service.id);
      await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', service.id).execute();
      await t.deps.accounts.changed(service.id);
      const team = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(service.tokens.access_token), payload: { name: 'Platform' } })).json() as { id: string };
      const teamAdmin = await t.signUp();
      await t.confirmEmail(teamAdmin.id);
      await join(service.tokens.access_token, team.id, teamAdmin, 'admin');
      const inTeam = { 'gatehouse-organization': team.id };
      const created = await t.request({ method: 'POST', url: '/v1/api-keys', headers: { ...bearer(service.tokens.access_token), ...inTeam }, payload: { name: 'runtime verifier', scopes: ['credentials:verify'] } });
      expect(created.statusCode, created.body).toBe(201);
      const { id, key } = created.json() as { id: string; key: string };

      const asTeamAdmin = { ...bearer(teamAdmin.tokens.access_token), ...inTeam };
      const roll = await t.request({ method: 'POST', url: `/v1/api-keys/${id}/roll`, headers: asTeamAdmin, payload: { grace_seconds: 604_800 } });
      expect(roll.statusCode, roll.body).toBe(403);
      expect(roll.json().code).toBe('forbidden');
      expect(roll.body).not.toContain('gth_');
      for (const payload of [{ name: 'mine now' }, { expires_at: null }, { rate_limit: null }]) {
        const update = await t.request({ method: 'PATCH', url: `/v1/api-keys/${id}`, headers: asTeamAdmin, payload });
        expect(update.statusCode, update.body).toBe(403);
      }
      // Untouched: same secret, same name; the owner's program goes on.
      expect((await verify({ credential: key }, key)).valid).toBe(true);
      expect((await t.request({ method: 'GET', url: `/v1/api-keys/${id}`, headers: asTeamAdmin })).json()).toMatchObject({ name: 'runtime verifier', previous_key_expires_at: null });
      // Taking its power away stays open to the team's admin (a leaked key must be stoppable).
      expect((await t.request({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: asTeamAdmin })).statusCode).toBe(204);
    });

    it('an admin demoted to member still renames, narrows and rolls their own key after a leak (it works no further than their role anyway)', async () => {
      const owner = await t.signUp();
      const team = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(owner.tokens.access_token), payload: { name: 'Demotions' } })).json() as { id: string };
      const member = await t.signUp();
      await t.confirmEmail(member.id);
      await join(owner.tokens.access_token, team.id, member, 'admin');
      const inTeam = { ...bearer(member.tokens.access_token), 'gatehouse-organization': team.id };
      const made = await t.request({ method: 'POST', url: '/v1/api-keys', headers: inTeam, payload: { name: 'hooks', scopes: ['agents:read', 'webhooks:write'] } });
      expect(made.statusCode, made.body).toBe(201);
      const demoted = await t.request({ method: 'PATCH', url: `/v1/organizations/${team.id}/members/${member.id}`, headers: bearer(owner.tokens.access_token), payload: { role: 'member' } });
      expect(demoted.statusCode, demoted.body).toBe(200);
      const id = made.json().id as string;
      expect((await t.request({ method: 'PATCH', url: `/v1/api-keys/${id}`, headers: inTeam, payload: { name: 'leaked' } })).statusCode).toBe(200);
      expect((await t.request({ method: 'POST', url: `/v1/api-keys/${id}/roll`, headers: inTeam, payload: {} })).statusCode).toBe(200);
    });

    it("an organization admin rolls another member's key of platform scopes (every platform scope is an admin's to hold)", async () => {
      const owner = await t.signUp();
      await t.confirmEmail(owner.id);
      const team = (await t.request({ method: 'POST', url: '/v1/organizations', headers: bearer(owner.tokens.access_token), payload: { name: 'Rollers' } })).json() as { id: string };
      const admin = await t.signUp();
      await t.confirmEmail(admin.id);
      await join(owner.tokens.access_token, team.id, admin, 'admin');
      const inTeam = { 'gatehouse-organization': team.id };
      const made = await t.request({ method: 'POST', url: '/v1/api-keys', headers: { ...bearer(owner.tokens.access_token), ...inTeam }, payload: { name: 'writer', scopes: ['agents:write', 'webhooks:write'] } });
      const rolled = await t.request({ method: 'POST', url: `/v1/api-keys/${made.json().id}/roll`, headers: { ...bearer(admin.tokens.access_token), ...inTeam }, payload: {} });
      expect(rolled.statusCode, rolled.body).toBe(200);
    });
  });

  describe('PATCH /v1/api-keys/{id}', () => {
    it('renames, narrows scopes and sets limits, at once for a key in use', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const key = await createKey(token, { name: 'old name', scopes: ['agents:read', 'chats:read'] });
      expect((await agents(key.key)).statusCode).toBe(200); // now cached
      const patched = await t.request({ method: 'PATCH', url: `/v1/api-keys/${key.id}`, headers: bearer(token), payload: { name: 'new name', scopes: ['chats:read'], rate_limit: { per_minute: 2 } } });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ name: 'new name', scopes: ['chats:read'], rate_limit: { per_minute: 2, per_day: null } });
      // Refused for its scope, yet counted (every request with a valid credential counts).
      expect((await agents(key.key)).statusCode).toBe(403);
      const chats = () => t.request({ method: 'GET', url: '/v1/chats', headers: bearer(key.key) });
      expect((await chats()).statusCode).toBe(200);
      expect((await chats()).statusCode).toBe(429);
    });

    it('refuses to widen scopes, an expiry in the past, a refill without uses, an empty body, and another account\'s key', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const key = await createKey(token, { name: 'k', scopes: ['agents:read'] });
      const patch = (payload: Record<string, unknown>, id = key.id, auth = token) => t.request({ method: 'PATCH', url: `/v1/api-keys/${id}`, headers: bearer(auth), payload });
      const wider = await patch({ scopes: ['agents:read', 'agents:write'] });
      expect(wider.statusCode, wider.body).toBe(400);
      expect(wider.json().errors[0]).toMatchObject({ field: '/scopes', code: 'not_narrower' });
      expect((await patch({ expires_at: new Date(t.clock.now() - 1000).toISOString() })).json().errors[0]).toMatchObject({ field: '/expires_at', code: 'in_past' });
      expect((await patch({ remaining: null, refill: { amount: 5, interval: 'day' } })).json().errors[0]).toMatchObject({ field: '/refill', code: 'needs_remaining' });
      expect((await patch({})).statusCode).toBe(400);
      const stranger = await t.signUp();
      expect((await patch({ name: 'mine' }, key.id, stranger.tokens.access_token)).statusCode).toBe(404);
      expect((await patch({ name: 'x' }, 'key_nope')).statusCode).toBe(404);
      // An expiry can be moved; null removes it.
      const later = new Date(t.clock.now() + 3_600_000).toISOString();
      expect((await patch({ expires_at: later })).json().expires_at).toBe(later);
      expect((await patch({ expires_at: null })).json().expires_at).toBeNull();
    });
  });

  describe('POST /v1/api-keys/{id}/roll', () => {
    it('gives a new secret; the old one works during the grace and is refused after it', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const key = await createKey(token, { name: 'rolled', scopes: ['agents:read'] });
      expect((await agents(key.key)).statusCode).toBe(200);
      const rolled = await t.request({ method: 'POST', url: `/v1/api-keys/${key.id}/roll`, headers: bearer(token), payload: { grace_seconds: 3600 } });
      expect(rolled.statusCode, rolled.body).toBe(200);
      const fresh = rolled.json();
      expect(fresh).toMatchObject({ id: key.id, name: 'rolled', scopes: ['agents:read'], prefix: fresh.key.slice(0, 8), previous_key_expires_at: new Date(t.clock.now() + 3_600_000).toISOString() });
      expect(fresh.key).not.toBe(key.key);
      expect((await agents(key.key)).statusCode).toBe(200);
      expect((await agents(fresh.key)).statusCode).toBe(200);
      expect(await verify({ credential: key.key, count: false })).toMatchObject({ valid: true, key_id: key.id, expires_at: fresh.previous_key_expires_at });
      t.clock.advance(3_601_000);
      const old = await agents(key.key);
      expect(old.statusCode).toBe(401);
      expect(old.json().code).toBe('token_expired');
      expect(await verify({ credential: key.key })).toMatchObject({ valid: false, code: 'expired', key_id: key.id });
      expect((await agents(fresh.key)).statusCode).toBe(200);
    });

    it('with no grace refuses the old secret at once; rolling again ends an earlier grace; revoking ends both', async () => {
      const user = await t.signUp();
      const token = user.tokens.access_token;
      const key = await createKey(token, { name: 'r0' });
      const roll = async (body?: Record<string, unknown>) => {
        const res = await t.request({ method: 'POST', url: `/v1/api-keys/${key.id}/roll`, headers: bearer(token), ...(body ? { payload: body } : {}) });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };
      const second = await roll();
      expect(second.previous_key_expires_at).toBeNull();
      expect((await agents(key.key)).statusCode).toBe(401);
      const third = await roll({ grace_seconds: 600 });
      expect((await agents(second.key)).statusCode).toBe(200);
      const fourth = await roll({ grace_seconds: 600 });
      expect((await agents(second.key)).statusCode).toBe(401);
      expect((await agents(third.key)).statusCode).toBe(200);
      await t.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, headers: bearer(token) });
      expect((await agents(third.key)).statusCode).toBe(401);
      expect((await agents(fourth.key)).statusCode).toBe(401);
      const bad = await t.request({ method: 'POST', url: `/v1/api-keys/${key.id}/roll`, headers: bearer(token), payload: { grace_seconds: 8 * 86_400 } });
      expect(bad.statusCode).toBe(400);
    });
  });

  it('the service key itself spends nothing of its owner\'s budget', async () => {
    adminToken = (await t.login(adminLogin.email, adminLogin.password)).access_token; // the clock moved on
    const usage = await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(adminToken) });
    expect(usage.statusCode, usage.body).toBe(200);
    const before = usage.json().day.used;
    for (let i = 0; i < 5; i++) await verify({ credential: 'gth_nothing', count: false });
    expect((await t.request({ method: 'GET', url: '/v1/usage', headers: bearer(adminToken) })).json().day.used).toBe(before);
    expect(adminId).toMatch(/^usr_/);
  });

  it('makes no database write per request: counting, limits and history stay in memory (a key with a number of uses excepted)', async () => {
    const user = await t.signUp();
    const key = await createKey(user.tokens.access_token, { name: 'busy', rate_limit: { per_minute: 1000 } });
    // Warm: the key, the account and the statements are cached after one request.
    expect((await agents(key.key)).statusCode).toBe(200);
    const statements = await countStatements(t.deps.database);
    try {
      for (let i = 0; i < 50; i++) expect((await agents(key.key)).statusCode).toBe(200);
      for (let i = 0; i < 20; i++) expect((await verify({ credential: key.key })).valid).toBe(true);
      // The webhook worker polls on its own timer (an UPDATE of deliveries); the requests wrote nothing.
      expect(statements.writes().filter((w) => !/"deliveries"/.test(w))).toEqual([]);
      // A key with uses spends them in the database: one UPDATE per use, nothing else.
      const limited = await createKey(user.tokens.access_token, { name: 'uses', remaining: 100 });
      expect((await agents(limited.key)).statusCode).toBe(200);
      statements.reset();
      for (let i = 0; i < 5; i++) expect((await agents(limited.key)).statusCode).toBe(200);
      expect(statements.writes().filter((w) => !/"deliveries"/.test(w))).toHaveLength(5);
      expect(statements.writes('api_keys').every((w) => /^update "api_keys"/i.test(w))).toBe(true);
    } finally {
      statements.stop();
    }
  });
});
