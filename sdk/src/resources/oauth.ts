/**
 * Gatehouse as an OAuth authorization server, seen from the account: the consent step of an
 * authorization (for a same-origin page like the dashboard's: the server binds the interaction to
 * the browser that began it with a cookie scoped to the interaction's path), an organization's
 * OAuth apps, and the apps a person has connected.
 */
import type { Call, RequestOptions } from '../core.js';
import type { RequestBody } from '../operations.js';

export function oauthResource(call: Call) {
  return {
    /** The app, where it sends the person back, the scopes asked for and the resource. */
    interaction: (uid: string, options?: RequestOptions) => call('getOauthInteraction', { params: { uid } }, options),
    /** Allow (for an organization, default the personal one) or deny; follow `redirect_to` in the browser. */
    decide: (uid: string, decision: RequestBody<'decideOauthInteraction'>, options?: RequestOptions) =>
      call('decideOauthInteraction', { params: { uid }, body: decision }, options),
    /** When `interaction(uid)` names a `remembered_organization_id`: go on with the consent given before, without asking again. */
    continue: (uid: string, options?: RequestOptions) => call('continueOauthInteraction', { params: { uid } }, options),
    /** Settings → OAuth apps, for the organization the client acts for (admins). */
    apps: {
      /** A confidential app's `client_secret` is in this answer only. */
      create: (body: RequestBody<'createOauthApp'>, options?: RequestOptions) => call('createOauthApp', { body }, options),
      list: (options?: RequestOptions) => call('listOauthApps', {}, options),
      /** Every grant made to the app ends at once. */
      remove: (id: string, options?: RequestOptions) => call('deleteOauthApp', { params: { id } }, options),
      rotateSecret: (id: string, options?: RequestOptions) => call('rotateOauthAppSecret', { params: { id } }, options),
    },
    /** Settings → Connected apps: the grants this account made. */
    connectedApps: {
      list: (options?: RequestOptions) => call('listConnectedApps', {}, options),
      /** The app's tokens stop working at once, on every instance. */
      revoke: (id: string, options?: RequestOptions) => call('revokeConnectedApp', { params: { id } }, options),
    },
  };
}
