import type { FastifyReply } from 'fastify';

/**
 * The policy of a page that loads nothing (/docs/errors, a refusal shown as a page): its inline
 * style only. frame-ancestors, base-uri and form-action do not fall back to default-src, so they
 * are named.
 */
export const STATIC_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers every HTML page we serve carries (the dashboard, /docs, /docs/errors): its own
 * Content-Security-Policy, never inside a frame (X-Frame-Options for browsers that ignore CSP's
 * frame-ancestors), and no Referer leaving the page (the dashboard's verify-email and
 * reset-password pages carry single-use tokens in their query string; /docs holds a pasted token).
 */
export function setPageHeaders(reply: FastifyReply, contentSecurityPolicy?: string): void {
  if (contentSecurityPolicy !== undefined) reply.header('content-security-policy', contentSecurityPolicy);
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
}
