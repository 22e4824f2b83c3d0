import { randomBytes } from 'node:crypto';
import { STRONG_PASSWORD, bearer, createTestApp, type TestApp } from '../harness.js';
import { startTestIssuer } from '../oidc-issuer.js';
import { KEY_SCOPES } from '../../src/kernel/access-terms/scopes.js';

/**
 * One app and one account for a fuzz file, with a live resource of every kind so path
 * parameters sometimes name something that exists (and mutated bodies reach the handlers).
 * The owner is an admin with a budget no fuzz run can exhaust: a 429 would hide every other
 * answer. Requests that succeed can delete fixtures or revoke credentials (logout, DELETE
 * /sessions/{id}…), so `repair()` puts the world back; it uses its own client address so the
 * fuzzer's failed logins never lock it out.
 */
export const WORLD_ADDRESS = '10.200.0.1';
const PUBLIC_WEBHOOK_URL = 'https://93.184.215.14/fuzz-hook'; // an IP literal: no DNS needed, passes the SSRF guard

export interface FuzzWorld {
  t: TestApp;
  ownerId: string;
  accessToken(): string;
  apiKey(): string;
  /**
   * Live ids by the path segment that names their collection: agents, chats, messages (of the live
   * chat), webhooks, api-keys, sessions, users, organizations (a team the owner owns), members (a
   * member of that team) and invitations (an open invitation of that team).
   */
  liveIds(): Readonly<Record<string, string>>;
  /** Re-creates whatever a successful fuzz request deleted or revoked. */
  repair(): Promise<void>;
  close(): Promise<void>;
}

function expectStatus(res: { statusCode: number; body: string }, status: number, what: string): void {
  if (res.statusCode !== status) throw new Error(`fuzz world: ${what} answered ${res.statusCode} ${res.body.slice(0, 300)}`);
}

export async function createFuzzWorld(env: Record<string, string> = {}): Promise<FuzzWorld> {
  // The owner's requests to the account routes (and the world's own repairs) run in the thousands
  // a minute: their abuse limit is raised like the owner's budget, so answers are the operation's.
  // A real provider behind the documented example id (`google`), so a fuzzed authorize with the
  // documented examples reaches the provider's redirect.
  const issuer = await startTestIssuer([{ client_id: 'fuzz', client_secret: 'fuzz-client-secret', redirect_uris: ['http://gatehouse.test/v1/auth/oidc/google/callback'] }]);
  const t = await createTestApp({
    env: {
      ACCOUNT_RATE_LIMIT_PER_MINUTE: '1000000',
      APP_LINK_URL: 'myapp://auth',
      // Guests on, so POST /v1/auth/anonymous is fuzzed in its working state.
      ANONYMOUS_SIGN_IN: 'true',
      OIDC_PROVIDERS: JSON.stringify([{ id: 'google', issuer: issuer.url, client_id: 'fuzz', client_secret: 'fuzz-client-secret' }]),
      ...env,
    },
  });
  const owner = await t.register({ password: STRONG_PASSWORD, name: 'Fuzz Owner' });
  const victim = await t.register({ name: 'Admin Target' });
  // The victim is also the team's member: accepting an invitation needs a confirmed address.
  await t.confirmEmail(victim.id);
  await t.deps.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', owner.id).execute();
  let token = '';
  let key = '';
  const ids: Record<string, string> = { users: victim.id };

  const login = async () => {
    const res = await t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: WORLD_ADDRESS, payload: { username: owner.email, password: owner.password } });
    expectStatus(res, 200, 'logging in the owner');
    return res.json().access_token as string;
  };
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, credential = token) =>
    t.request({ method, url, headers: bearer(credential), remoteAddress: WORLD_ADDRESS, ...(payload ? { payload } : {}) });
  const exists = async (url: string, credential = token) => (await call('GET', url, undefined, credential)).statusCode === 200;

  /** Creates the fixture in `slot` when it is missing (deleted by a fuzzed request). */
  async function ensure(slot: string, url: string, create: () => Promise<string>): Promise<void> {
    if (!ids[slot] || !(await exists(`${url}/${ids[slot]}`))) ids[slot] = await create();
  }
  const created = async (res: Promise<{ statusCode: number; body: string; json(): { id: string } }>, what: string) => {
    const answer = await res;
    expectStatus(answer, 201, what);
    return answer.json().id;
  };

  async function repairCredentials(): Promise<void> {
    if (!token || !(await exists('/v1/users/me'))) token = await login();
    // An admin PATCH on the owner could disable it or shrink its budget; put both back.
    const limits = await call('PATCH', `/v1/admin/users/${owner.id}`, { disabled: false, tier: 'enterprise', limits: { per_minute: 10_000_000, per_day: 1_000_000_000 } });
    expectStatus(limits, 200, 'raising the owner limits');
    if (!key || !(await exists('/v1/usage', key))) {
      // Every scope, the service scope too (the owner is an admin), so POST /v1/auth/verify is fuzzed past its caller's check.
      const res = await call('POST', '/v1/api-keys', { name: 'fuzz key', scopes: [...KEY_SCOPES] });
      expectStatus(res, 201, 'creating an API key');
      key = res.json().key;
    }
  }

  async function repairFixtures(): Promise<void> {
    await ensure('api-keys', '/v1/api-keys', () => created(call('POST', '/v1/api-keys', { name: 'fuzz target key' }), 'creating a target API key'));
    await ensure('agents', '/v1/agents', () => created(call('POST', '/v1/agents', { name: 'Fuzz agent', model: 'gpt-4o' }), 'creating an agent'));
    await ensure('chats', '/v1/chats', async () => {
      const id = await created(call('POST', '/v1/chats', { agent_id: ids.agents, title: 'Fuzz chat' }), 'creating a chat');
      expectStatus(await call('POST', `/v1/chats/${id}/messages`, { role: 'user', content: 'hello' }), 201, 'posting a message');
      // A streamed reply with deltas 1 to 20 applied, for …/messages/{message_id}/deltas and /complete:
      // a delta whose sequence was applied already is answered 200 (finished or not), and fuzzed
      // sequences are mostly small, so schema-shaped bodies reach a success. It lives as long as
      // its chat (messages are not deleted one by one).
      ids.messages = await created(call('POST', `/v1/chats/${id}/messages`, { role: 'assistant', status: 'streaming' }), 'starting a streamed reply');
      for (let sequence = 1; sequence <= 20; sequence++) {
        expectStatus(await call('POST', `/v1/chats/${id}/messages/${ids.messages}/deltas`, { sequence, content: `${sequence},` }), 200, 'appending a delta');
      }
      return id;
    });
    await ensure('webhooks', '/v1/webhooks', () => created(call('POST', '/v1/webhooks', { url: PUBLIC_WEBHOOK_URL, events: ['*'] }), 'creating a webhook'));
    // A second session, so DELETE /sessions/{id} can hit one that is not ours.
    const otherSession = async () => ((await call('GET', '/v1/sessions?limit=100')).json().data as Array<{ id: string; current: boolean }>).find((s) => !s.current)?.id;
    let other = await otherSession();
    if (!other) {
      await login();
      other = await otherSession();
    }
    ids.sessions = other!;
  }

  /** The token of the invitation link last mailed to `email` (without SMTP_URL the mailer writes mails to the log; mail goes out after the answer). */
  async function mailedInvitationToken(email: string, after: number): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const mails = t.logs.slice(after).map((line) => (JSON.parse(line) as { mail?: { to: string; subject: string; text: string } }).mail)
        .filter((mail) => mail?.to === email && /invited to join/.test(mail.subject));
      const match = /accept-invitation\?token=([A-Za-z0-9_%-]+)/.exec(mails.at(-1)?.text ?? '');
      if (match) return decodeURIComponent(match[1]!);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`fuzz world: no invitation mail to ${email}`);
  }

  /** A fresh access token of the victim (a fuzzed admin PATCH may have disabled the account: enabled again first). */
  async function victimToken(): Promise<string> {
    expectStatus(await call('PATCH', `/v1/admin/users/${victim.id}`, { disabled: false }), 200, 'enabling the member');
    const res = await t.request({ method: 'POST', url: '/v1/auth/login', remoteAddress: WORLD_ADDRESS, payload: { username: victim.email, password: victim.password } });
    expectStatus(res, 200, 'logging in the member');
    return res.json().access_token as string;
  }

  /** Invites `email` to the team; undefined when the team's hourly invitations are spent (fuzzed invitations count too). */
  async function invite(email: string, role: string): Promise<{ id: string; mailedFrom: number } | undefined> {
    const mailedFrom = t.logs.length;
    const res = await call('POST', `/v1/organizations/${ids.organizations}/invitations`, { email, role });
    if (res.statusCode === 429) return undefined;
    expectStatus(res, 201, 'inviting to the team');
    return { id: res.json().id, mailedFrom };
  }

  /** A team the owner owns (the owner can belong to 100 organizations: fuzzed creations are pruned when that is reached). */
  async function createTeam(): Promise<string> {
    let res = await call('POST', '/v1/organizations', { name: 'Fuzz team' });
    if (res.statusCode === 422) {
      const orgs = (await call('GET', '/v1/organizations?limit=100')).json().data as Array<{ id: string; personal: boolean; role: string }>;
      for (const org of orgs.filter((o) => !o.personal && o.role === 'owner')) await call('DELETE', `/v1/organizations/${org.id}`);
      res = await call('POST', '/v1/organizations', { name: 'Fuzz team' });
    }
    expectStatus(res, 201, 'creating the team');
    return res.json().id;
  }

  /**
   * The team, with the victim as a member and an open invitation, so the organization routes
   * reach past their 404s. A fuzzed request may delete the team, remove the member or withdraw
   * the invitation; a team whose hourly invitations are spent is replaced by a new one.
   */
  async function repairTeam(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!ids.organizations || !(await exists(`/v1/organizations/${ids.organizations}`))) {
        ids.organizations = await createTeam();
        delete ids.invitations;
      }
      const members = (await call('GET', `/v1/organizations/${ids.organizations}/members?limit=100`)).json().data as Array<{ user_id: string }>;
      if (!members.some((m) => m.user_id === victim.id)) {
        const invitation = await invite(victim.email, 'member');
        if (!invitation) {
          delete ids.organizations;
          continue;
        }
        const accepted = await call('POST', '/v1/invitations/accept', { token: await mailedInvitationToken(victim.email, invitation.mailedFrom) }, await victimToken());
        expectStatus(accepted, 200, 'the member accepting the invitation');
      }
      ids.members = victim.id;
      const pending = (await call('GET', `/v1/organizations/${ids.organizations}/invitations?limit=100`)).json().data as Array<{ id: string }>;
      if (!ids.invitations || !pending.some((i) => i.id === ids.invitations)) {
        const invitation = await invite(`invitee-${randomBytes(4).toString('hex')}@example.com`, 'viewer');
        if (!invitation) {
          delete ids.organizations;
          continue;
        }
        ids.invitations = invitation.id;
      }
      return;
    }
    throw new Error('fuzz world: could not set up the team');
  }

  async function repair(): Promise<void> {
    await repairCredentials();
    await repairFixtures();
    await repairTeam();
  }

  await repair();
  return {
    t,
    ownerId: owner.id,
    accessToken: () => token,
    apiKey: () => key,
    liveIds: () => ids,
    repair,
    close: async () => {
      await t.close();
      await issuer.close();
    },
  };
}
