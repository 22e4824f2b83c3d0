/**
 * A browser for provider sign-in tests, with nothing but fetch (it runs in Node, Vitest and the
 * React Native package's Jest alike). The provider's sign-in form is test/oidc-issuer.ts's.
 */

/**
 * A browser: follows redirects from `startUrl` (Gatehouse's authorize URL, or the provider's own)
 * with a cookie jar per origin, signs in at the provider's form as `accountId` (or cancels), and
 * returns the first URL `until` accepts (default: the first that leaves the start's origin),
 * or the first that is not http(s) (an app's scheme).
 */
export async function signInAtProvider(startUrl: string, accountId: string, options: { cancel?: boolean; until?: (url: URL) => boolean } = {}): Promise<URL> {
  const jars = new Map<string, Map<string, string>>();
  const startOrigin = new URL(startUrl).origin;
  const until = options.until ?? ((url: URL) => url.origin !== startOrigin);
  const send = async (target: URL, init: RequestInit = {}) => {
    const jar = jars.get(target.origin) ?? new Map<string, string>();
    jars.set(target.origin, jar);
    const response = await fetch(target, {
      ...init, redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
    return response;
  };
  let next = new URL(startUrl);
  for (let hop = 0; hop < 12; hop += 1) {
    if (until(next) || !/^https?:$/.test(next.protocol)) return next;
    let response: Response;
    if (/^\/interaction\//.test(next.pathname)) {
      const body = new URLSearchParams(options.cancel ? { cancel: '1' } : { login: accountId });
      response = await send(next, { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    } else {
      response = await send(next);
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`${next.origin} answered ${response.status} without a redirect: ${await response.text()}`);
    next = new URL(location, next);
  }
  throw new Error('too many redirects');
}
