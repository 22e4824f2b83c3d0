import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, dialect, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';

/**
 * Changing who may act in a team is as sensitive as a new key: with a stolen access token whose
 * session never proved the second factor (or proved it too long ago), a thief must not make an
 * owner, remove the real one and take the team.
 */
describe(`step-up on the team's power (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  beforeAll(async () => {
    inbox = await startInbox();
    t = await createTestApp({ env: { SMTP_URL: inbox.url, MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>', MFA_STEP_UP_SECONDS: '600' } });
  });
  afterAll(async () => {
    await t.close();
    await inbox.close();
  });

  interface Person { id: string; email: string; token: string; code?: () => string }
  const call = (who: Person, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.request({ method, url, headers: bearer(who.token), ...(payload === undefined ? {} : { payload }) });
  const person = async (): Promise<Person> => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    return { id: user.id, email: user.email, token: user.tokens.access_token };
  };
  /** A person with TOTP on whose session proved it when enrolling, then let the step-up window pass. */
  const ownerWithTotp = async (): Promise<Person> => {
    const user = await t.signUp();
    await t.confirmEmail(user.id);
    const owner: Person = { id: user.id, email: user.email, token: user.tokens.access_token };
    const { otpauth_url: url } = (await call(owner, 'POST', '/v1/users/me/mfa/totp', { password: user.password })).json();
    const totp = OTPAuth.URI.parse(url) as OTPAuth.TOTP;
    owner.code = () => totp.generate({ timestamp: t.clock.now() });
    expect((await call(owner, 'POST', '/v1/users/me/mfa/totp/confirm', { code: owner.code() })).statusCode).toBe(200);
    t.clock.advance(601_000);
    return owner;
  };
  const stepUp = async (who: Person) => {
    t.clock.advance(30_000); // a new TOTP step: the last code was spent
    const res = await call(who, 'POST', '/v1/users/me/mfa/step-up', { code: who.code!() });
    expect(res.statusCode, res.body).toBe(200);
  };
  const expectMfaRequired = (res: { statusCode: number; body: string; json(): { code: string } }) => {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('mfa_required');
  };
  const join = async (owner: Person, orgId: string, who: Person, role: string) => {
    const invited = await call(owner, 'POST', `/v1/organizations/${orgId}/invitations`, { email: who.email, role });
    expect(invited.statusCode, invited.body).toBe(201);
    const token = tokenFromMail(await inbox.waitFor(who.email, /invited to join/), 'accept-invitation');
    expect((await call(who, 'POST', '/v1/invitations/accept', { token })).statusCode).toBe(200);
  };
  const roleOf = async (orgId: string, userId: string) =>
    (await t.deps.database.db.selectFrom('memberships').select('role').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst())?.role;

  it('inviting as owner or admin, promoting, demoting and removing need a recent second factor; inviting a member does not', async () => {
    const owner = await ownerWithTotp();
    const org = (await call(owner, 'POST', '/v1/organizations', { name: 'Crown jewels' })).json() as { id: string };
    const member = await person();
    // Inviting a member or a viewer grants no power over the team: no step-up.
    await join(owner, org.id, member, 'member');

    const outsider = await person();
    for (const role of ['owner', 'admin']) {
      expectMfaRequired(await call(owner, 'POST', `/v1/organizations/${org.id}/invitations`, { email: outsider.email, role }));
    }
    expectMfaRequired(await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${member.id}`, { role: 'owner' }));
    expectMfaRequired(await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${member.id}`, { role: 'admin' }));
    expectMfaRequired(await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${member.id}`, { role: 'viewer' }));
    expectMfaRequired(await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${member.id}`));
    // Nothing changed, and no invitation was left behind.
    expect(await roleOf(org.id, member.id)).toBe('member');
    const pending = (await call(owner, 'GET', `/v1/organizations/${org.id}/invitations`)).json();
    expect(pending.data).toEqual([]);

    // Once the session proves the factor, each goes through.
    await stepUp(owner);
    expect((await call(owner, 'PATCH', `/v1/organizations/${org.id}/members/${member.id}`, { role: 'owner' })).statusCode).toBe(200);
    expect((await call(owner, 'POST', `/v1/organizations/${org.id}/invitations`, { email: outsider.email, role: 'admin' })).statusCode).toBe(201);
    expect((await call(owner, 'DELETE', `/v1/organizations/${org.id}/members/${member.id}`)).statusCode).toBe(204);
  });

  it('leaving a team gives up only one\'s own access: no step-up', async () => {
    const owner = await person();
    const org = (await call(owner, 'POST', '/v1/organizations', { name: 'Leavers' })).json() as { id: string };
    const member = await ownerWithTotp(); // a person with TOTP whose step-up window has passed
    await join(owner, org.id, member, 'member');
    expect((await call(member, 'DELETE', `/v1/organizations/${org.id}/members/${member.id}`)).statusCode).toBe(204);
    expect(await roleOf(org.id, member.id)).toBeUndefined();
  });

  it('an account without a second factor is not asked for one', async () => {
    const owner = await person();
    const org = (await call(owner, 'POST', '/v1/organizations', { name: 'Plain' })).json() as { id: string };
    const other = await person();
    await join(owner, org.id, other, 'owner');
    expect(await roleOf(org.id, other.id)).toBe('owner');
  });
});
