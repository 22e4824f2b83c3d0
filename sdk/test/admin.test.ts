/**
 * The admin resource against a live `gatehouse serve`: finding users (part of the address or name,
 * tier, status), one user with their organizations, their security log, disabling and enabling.
 * The admin role is granted with the CLI, as an operator does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../src/index.js';
import { rejection, signUp, type SignedIn } from './helpers.js';
import { startLiveServer, STRONG_PASSWORD, type LiveServer } from './live-server.js';

let server: LiveServer;
let admin: SignedIn;

beforeAll(async () => {
  server = await startLiveServer();
  admin = await signUp(server);
  const granted = await server.cli(['users', 'grant-admin', admin.email]);
  expect(granted.code, granted.output).toBe(0);
  // The CLI cannot tell this server (no Redis): the role shows once the cached account expires.
  for (let i = 0; i < 100; i++) {
    if (await admin.gh.admin.listUsers({ limit: 1 }).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the admin role never showed');
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('admin', () => {
  it('listUsers finds part of an address or a name, by tier and status, and pages through everyone', async () => {
    const target = await signUp(server);
    const local = target.email.split('@')[0]!;
    expect((await admin.gh.admin.listUsers({ q: local.toUpperCase() })).data.map((u) => u.id)).toEqual([target.userId]);
    expect((await admin.gh.admin.listUsers({ email: target.email })).data.map((u) => u.id)).toEqual([target.userId]);

    await admin.gh.admin.updateUser(target.userId, { tier: 'pro' });
    const pros = await admin.gh.admin.listUsers({ q: local, tier: 'pro', disabled: false });
    expect(pros.data).toEqual([expect.objectContaining({ id: target.userId, tier: 'pro', disabled: false, deletion_due_at: null })]);
    expect((await admin.gh.admin.listUsers({ q: local, tier: 'free' })).data).toEqual([]);

    const everyone = await collect((cursor) => admin.gh.admin.listUsers({ cursor, limit: 1 }));
    expect(everyone.map((u) => u.id)).toEqual(expect.arrayContaining([admin.userId, target.userId]));
    expect(new Set(everyone.map((u) => u.id)).size).toBe(everyone.length);

    expect(await rejection(admin.gh.admin.listUsers({ q: 'x'.repeat(101) }))).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('getUser shows the user and their organizations; userSecurityEvents their log, as they see it', async () => {
    const target = await signUp(server);
    const team = await target.gh.organizations.create({ name: 'Night shift' });
    const detail = await admin.gh.admin.getUser(target.userId);
    expect(detail).toMatchObject({ id: target.userId, email: target.email, role: 'user', disabled: false });
    expect(detail.organizations).toEqual([
      { id: team.id, name: 'Night shift', role: 'owner', personal: false },
      expect.objectContaining({ role: 'owner', personal: true }),
    ]);

    const theirs = await admin.gh.admin.userSecurityEvents(target.userId, { type: 'sign_in' });
    expect(theirs.data.map((e) => e.type)).toEqual(['sign_in']);
    expect(theirs).toEqual(await target.gh.me.securityEvents({ type: 'sign_in' }));
    expect(await rejection(admin.gh.admin.getUser('usr_01m80h15sxexf8nyy2raa7xwfh'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(admin.gh.admin.userSecurityEvents('usr_01m80h15sxexf8nyy2raa7xwfh'))).toMatchObject({ status: 404, code: 'not_found' });
    // Not an admin: refused, whatever the user asks about.
    expect(await rejection(target.gh.admin.getUser(target.userId))).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('updateUser disables an account (refused at once, recorded in its log) and enables it again', async () => {
    const target = await signUp(server);
    expect(await admin.gh.admin.updateUser(target.userId, { disabled: true })).toMatchObject({ id: target.userId, disabled: true });
    expect(await rejection(target.gh.me.get())).toMatchObject({ status: 401 });
    expect(await rejection(target.gh.auth.login({ username: target.email, password: STRONG_PASSWORD }))).toMatchObject({ status: 403, code: 'account_disabled' });
    expect((await admin.gh.admin.listUsers({ email: target.email, disabled: true })).data.map((u) => u.id)).toEqual([target.userId]);

    await admin.gh.admin.updateUser(target.userId, { disabled: false });
    await target.gh.auth.login({ username: target.email, password: STRONG_PASSWORD });
    expect((await target.gh.me.get()).id).toBe(target.userId);
    const log = await admin.gh.admin.userSecurityEvents(target.userId, { type: 'account_updated_by_admin' });
    expect(log.data.map((e) => e.detail)).toEqual([
      { admin_id: admin.userId, changes: { disabled: false } },
      { admin_id: admin.userId, changes: { disabled: true } },
    ]);
  });
});
