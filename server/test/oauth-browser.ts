/**
 * A person's browser in tests of the authorization server, with no test framework in it (the
 * React Native suite runs under Jest, the others under Vitest): a cookie jar that follows
 * redirects by hand, and the way through the consent step.
 */

/** A browser: a cookie jar and manual redirects. */
export function browser() {
  const jar = new Map<string, string>();
  return async (url: string | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
}

/**
 * A person's browser from `url` (an authorization, or a device code's confirmation) to the
 * consent step, the person's answer through `decide` (the consent page's call, made from the same
 * browser so the interaction's cookie goes with it), and on to the end: resolves with where the
 * browser leaves this server (the app's redirect URI with its query), or the last page's text.
 */
export async function answerInBrowser(options: {
  base: string;
  go: ReturnType<typeof browser>;
  decide: (uid: string, decision: 'allow' | 'deny') => Promise<{ redirect_to: string }>;
  url: string;
  decision: 'allow' | 'deny';
}): Promise<string> {
  const { base, go } = options;
  let at = new URL(options.url, base);
  while (!at.pathname.startsWith('/oauth/interaction/')) {
    const response = await go(at);
    if (response.status !== 303) throw new Error(`${at.pathname} answered ${response.status} before the consent step: ${await response.text()}`);
    at = new URL(response.headers.get('location')!, base);
  }
  const { redirect_to } = await options.decide(at.pathname.split('/').at(-1)!, options.decision);
  let next = await go(redirect_to);
  while (next.status === 303 && new URL(next.headers.get('location')!, base).origin === new URL(base).origin) next = await go(new URL(next.headers.get('location')!, base));
  return next.status === 303 ? next.headers.get('location')! : next.text();
}
