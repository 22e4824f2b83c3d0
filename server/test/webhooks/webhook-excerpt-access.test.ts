import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, dialect, type TestApp } from '../harness.js';
import { startInbox, tokenFromMail } from '../smtp-inbox.js';
import { appWithReceivers } from './app-with-receivers.js';

interface Delivery { id: string; attempts: Array<{ status_code: number | null; response_excerpt: string | null }> }

/**
 * Issue 31: what a receiver answered (the start of its body, which with WEBHOOK_ALLOW_PRIVATE can
 * be an internal service's) is for those who operate the endpoint, the organization's admins, as
 * the docs say; a viewer (or a key without webhooks:write) reads the delivery without it.
 */
describe(`webhook response excerpts (${dialect})`, () => {
  let t: TestApp;
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  // Filled in before the block's app is built (this hook is registered first, so runs first).
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: 'true', MAIL_FROM: 'Gatehouse <no-reply@gatehouse.test>' };
  beforeAll(async () => {
    inbox = await startInbox();
    env.SMTP_URL = inbox.url;
  });
  afterAll(() => inbox.close());
  const receiver = appWithReceivers(env, (app) => (t = app));

  const call = (token: string, method: 'GET' | 'POST', url: string, orgId: string, payload?: object) =>
    t.request({ method, url, headers: { ...bearer(token), ...(orgId ? { 'gatehouse-organization': orgId } : {}) }, ...(payload ? { payload } : {}) });

  it("shows the receiver's answer to admins only: a viewer and a read-only key get the attempts without it", async () => {
    const owner = await t.signUp();
    const viewer = await t.signUp();
    await t.confirmEmail(viewer.id);
    const ownerToken = owner.tokens.access_token;
    const orgId = (await call(ownerToken, 'POST', '/v1/organizations', '', { name: 'Acme' })).json().id as string;
    const invited = await call(ownerToken, 'POST', `/v1/organizations/${orgId}/invitations`, orgId, { email: viewer.email, role: 'viewer' });
    expect(invited.statusCode, invited.body).toBe(201);
    const mail = await inbox.waitFor(viewer.email, /invited to join/, 1);
    expect((await call(viewer.tokens.access_token, 'POST', '/v1/invitations/accept', orgId, { token: tokenFromMail(mail, 'accept-invitation') })).statusCode).toBe(200);

    const rx = await receiver({ status: 500, body: 'internal: db-7.corp password expired' });
    const hook = (await call(ownerToken, 'POST', '/v1/webhooks', orgId, { url: rx.url, events: ['webhook.test'] })).json();
    expect((await call(ownerToken, 'POST', `/v1/webhooks/${hook.id}/test`, orgId)).statusCode).toBe(202);
    await t.deps.webhooks.worker.runOnce();

    const seenBy = async (token: string) => {
      const res = await call(token, 'GET', `/v1/webhooks/${hook.id}/deliveries`, orgId);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as Delivery[])[0]!.attempts[0]!;
    };
    expect(await seenBy(ownerToken)).toMatchObject({ status_code: 500, response_excerpt: 'internal: db-7.corp password expired' });
    expect(await seenBy(viewer.tokens.access_token)).toMatchObject({ status_code: 500, response_excerpt: null });
    const readOnly = (await call(ownerToken, 'POST', '/v1/api-keys', orgId, { name: 'dashboard', scopes: ['webhooks:read'] })).json().key as string;
    expect(await seenBy(readOnly)).toMatchObject({ status_code: 500, response_excerpt: null });
  });

});
