import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signUp, type GetContext } from '../context.js';

const REDIRECT = 'http://127.0.0.1:4999/callback';

/**
 * Begins an authorization at the engine (`/oauth/*` speaks OAuth, outside the document) as a
 * browser would, up to the consent step: the interaction's uid and the cookie that binds it to
 * this browser.
 */
async function beginAuthorization(base: string, clientId: string): Promise<{ uid: string; cookie: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth/authorize', base);
  url.search = new URLSearchParams({
    client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'agents:read', state: 'conformance',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const uid = /\/oauth\/interaction\/([\w-]+)$/.exec(res.headers.get('location') ?? '')?.[1];
  if (!uid) throw new Error(`no interaction in ${res.headers.get('location')}`);
  return { uid, cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ') };
}

/** OAuth apps (an organization's), the consent step, and Connected apps (a person's grants). */
export function oauthJourney(ctx: GetContext): void {
  describe('OAuth apps and connected apps', () => {
    it('registers, lists, rotates and removes apps; a person allows one, sees it connected and ends the grant', async () => {
      const owner = await signUp(ctx().api, 'oauth');
      const token = owner.access;
      const app = { name: 'Conformance app', redirect_uris: [REDIRECT], scopes: ['agents:read'] };
      const confidential = (await owner.api.call('createOauthApp', { token, json: { ...app, type: 'confidential' } }, 201)).body;
      expect(confidential.client_secret).toMatch(/^gho_/);
      const publicApp = (await owner.api.call('createOauthApp', { token, json: { ...app, type: 'public' } }, 201)).body;
      expect(publicApp).not.toHaveProperty('client_secret');
      const listed = await owner.api.call('listOauthApps', { token }, 200);
      expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([publicApp.id, confidential.id]);
      const rotated = await owner.api.call('rotateOauthAppSecret', { token, path: { id: confidential.id } }, 200);
      expect(rotated.body.client_secret).not.toBe(confidential.client_secret);
      const noSecret = await owner.api.call('rotateOauthAppSecret', { token, path: { id: publicApp.id } }, 409);
      expect(noSecret.body.code).toBe('conflict');

      const { uid, cookie } = await beginAuthorization(ctx().stack.server.base, publicApp.id);
      const details = await owner.api.call('getOauthInteraction', { token, path: { uid }, headers: { cookie } }, 200);
      expect(details.body).toMatchObject({ client: { id: publicApp.id, name: 'Conformance app' }, scopes: ['agents:read'] });
      // Without the browser's cookie the interaction is not found: it cannot be answered from elsewhere.
      await owner.api.call('getOauthInteraction', { token, path: { uid } }, 404);
      await owner.api.call('decideOauthInteraction', { token, path: { uid }, json: { decision: 'allow' } }, 404);
      const malformed = await owner.api.callInvalid('getOauthInteraction', { token, path: { uid: 'not a uid!' } }, 400);
      expect(malformed.body.code).toBe('validation_failed');
      expect(details.body.remembered_organization_id).toBeNull();
      const nothingToContinue = await owner.api.call('continueOauthInteraction', { token, path: { uid }, headers: { cookie } }, 409);
      expect(nothingToContinue.body.code).toBe('conflict');
      const decided = await owner.api.call('decideOauthInteraction', { token, path: { uid }, headers: { cookie }, json: { decision: 'allow' } }, 200);
      expect(decided.body.redirect_to).toContain(`/oauth/authorize/${uid}`);

      // The same app asking for as much again: the consent is remembered, and the page goes on without asking.
      const again = await beginAuthorization(ctx().stack.server.base, publicApp.id);
      const remembered = await owner.api.call('getOauthInteraction', { token, path: { uid: again.uid }, headers: { cookie: again.cookie } }, 200);
      expect(remembered.body.remembered_organization_id).toEqual(expect.stringMatching(/^org_/));
      await owner.api.call('continueOauthInteraction', { token, path: { uid: again.uid } }, 404);
      const continued = await owner.api.call('continueOauthInteraction', { token, path: { uid: again.uid }, headers: { cookie: again.cookie } }, 200);
      expect(continued.body.redirect_to).toContain(`/oauth/authorize/${again.uid}`);

      const connected = await owner.api.call('listConnectedApps', { token }, 200);
      expect(connected.body.data).toMatchObject([{ client: { id: publicApp.id }, scopes: ['agents:read'] }]);
      const grant = connected.body.data[0].id as string;
      await owner.api.call('revokeConnectedApp', { token, path: { id: grant } }, 204);
      await owner.api.call('revokeConnectedApp', { token, path: { id: grant } }, 404);
      await owner.api.call('deleteOauthApp', { token, path: { id: confidential.id } }, 204);
      await owner.api.call('deleteOauthApp', { token, path: { id: confidential.id } }, 404);
    });
  });
}
