import { AppError } from '../../kernel/errors.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * What a redirect URI may be (RFC 8252 for native apps; OAuth 2.1 for the rest): https; http on
 * a loopback address (the port may change at each run, so the engine matches any port there);
 * or a private-use scheme in reverse-domain form (`com.example.app:/callback`). No fragment, no
 * `localhost` (it may resolve elsewhere), nothing else over plain http.
 * Returns whether the URI makes the app native (loopback or private-use scheme).
 */
export function checkRedirectUri(raw: string): { native: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('validation_failed', `${raw} is not an absolute URI.`);
  }
  if (url.hash || raw.includes('#')) throw new AppError('validation_failed', `A redirect URI carries no fragment: ${raw}.`);
  if (url.protocol === 'https:') return { native: false };
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return { native: true };
    throw new AppError('validation_failed', `Plain http is only for loopback addresses (127.0.0.1 or [::1]): ${raw}.`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+$/.test(scheme) && !['javascript', 'data', 'file', 'vbscript'].includes(scheme)) return { native: true };
  throw new AppError('validation_failed', `A custom scheme must be in reverse-domain form (com.example.app:/callback): ${raw}.`);
}
