/**
 * The consent step of an OAuth authorization, for a page like the dashboard's: what an app asks
 * the signed-in person to allow, and their answer. Same origin only: the server binds the
 * interaction to the browser that began it with a cookie scoped to the interaction's path.
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
  };
}
