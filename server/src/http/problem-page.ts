import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../kernel/html.js';
import { setPageHeaders, STATIC_PAGE_CSP } from './page-headers.js';

/**
 * Whether a refusal goes to a person's browser as a page: only on the routes a browser navigates
 * to (`config.browserPage`: the provider sign-in's authorize and callback), and only when the
 * request asks for HTML, as a navigation does. Programs (asking for JSON, or for anything) keep
 * getting problem+json.
 */
export function wantsProblemPage(reply: FastifyReply): boolean {
  const request = reply.request;
  return request.routeOptions.config?.browserPage === true && /\btext\/html\b/.test(request.headers.accept ?? '');
}

/** What the page shows of a problem body (problem.ts's ProblemBody). */
interface ShownProblem {
  title: string;
  detail: string;
  code: string;
  status: number;
  request_id: string;
}

/** The problem as a readable page: what went wrong, the request id to quote, the way back. */
export function sendProblemPage(reply: FastifyReply, body: ShownProblem, publicUrl: string): FastifyReply {
  setPageHeaders(reply, STATIC_PAGE_CSP);
  return reply.code(body.status).type('text/html; charset=utf-8').send(problemPageHtml(body, publicUrl));
}

/** The page itself (also the OAuth engine's error page: access/oauth/authorization-server.ts). */
export function problemPageHtml(body: ShownProblem, publicUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(body.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1c2430}code{font-size:.9em}</style></head><body>
<h1>${escapeHtml(body.title)}</h1>
<p>${escapeHtml(body.detail)}</p>
<p><a href="${escapeHtml(`${publicUrl}/login`)}">Back to sign-in</a></p>
<p><small>Error <code>${escapeHtml(body.code)}</code> (${body.status}), request <code>${escapeHtml(body.request_id)}</code>: quote it if you ask for help.</small></p>
</body></html>`;
}
